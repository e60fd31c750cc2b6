//! Plots drawn on any plotters backend: a canvas in the page, SVG for export and tests.
