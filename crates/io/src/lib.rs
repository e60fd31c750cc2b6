//! Rankscope's input and output below the views: files to the core's types
//! ([`parse`]), the example data ([`example`]), trec_eval's output format
//! ([`trec_format`]) and its relation files against a workspace's runs
//! ([`trec_relations`]), a team's catalog of runs ([`catalog`]). No HTML.

pub mod catalog;
pub mod example;
pub mod parse;
pub mod trec_format;
pub mod trec_relations;
