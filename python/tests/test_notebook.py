"""python/examples/dashboard.ipynb executed in a Jupyter kernel (nbclient), as
a reader runs it: every show() cell renders the dashboard inline, carrying
the app and its loading worker. The rendered output is written to
$RANKSCOPE_NOTEBOOK_HTML when set, for tests/e2e/reports.test.mjs to open in
Chromium and use Compare, Diagnostics and the values panel there.

Needs the built app in the package (scripts/build.sh copies it).
"""

import base64
import gzip
import html
import os
import re

import nbformat
from nbclient import NotebookClient

import rankscope

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NOTEBOOK = os.path.join(ROOT, "python", "examples", "dashboard.ipynb")


def _block(report: str, name: str) -> bytes:
    m = re.search(rf'<script type="application/octet-stream" id="{name}">([^<]*)</script>', report)
    assert m, f"the report has no {name} block"
    return base64.b64decode(m.group(1))


def test_the_dashboard_notebook_renders_every_view_with_its_worker(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    os.environ["RANKSCOPE_ROOT"] = ROOT
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    frames = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.outputs:
            assert out.output_type != "error", "\n".join(out.get("traceback", []))
            if "text/html" in out.get("data", {}):
                frames.append(out["data"]["text/html"])
    # the three show() cells: ranking runs, a binary file, trec_eval -q output
    assert len(frames) == 3
    package = os.path.join(os.path.dirname(os.path.abspath(rankscope.__file__)), "_dist")
    with open(os.path.join(package, "rankscope-worker_bg.wasm"), "rb") as f:
        worker_wasm = f.read()
    for frame in frames:
        m = re.match(r'<iframe srcdoc="([^"]*)"', frame)
        assert m, frame[:200]
        report = html.unescape(m.group(1))
        # the report carries the loading worker and lets it start from a blob: URL, nothing broader
        assert gzip.decompress(_block(report, "rankscope-worker-wasm")) == worker_wasm
        assert _block(report, "rankscope-worker-js").startswith(b"let wasm_bindgen")
        csp = re.search(r'Content-Security-Policy" content="([^"]+)"', report).group(1)
        assert "; worker-src blob:;" in csp and "default-src 'none'" in csp
    out = os.environ.get("RANKSCOPE_NOTEBOOK_HTML")
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write("<!DOCTYPE html>\n<meta charset=utf-8>\n<title>notebook</title>\n" + "\n".join(frames) + "\n")
