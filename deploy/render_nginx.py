"""Write deploy/'s nginx.conf from nginx.conf.template (deploy/run_local.sh calls this).

    python deploy/render_nginx.py STATE_DIR LISTEN UPSTREAM_LINES [--debug-backend]

The largest request body nginx lets through comes from the app's one upload setting,
``server.maxUploadSize`` in .streamlit/config.toml (the Tokenize page's tokenizer files,
ui/tokenize/upload.py LIMIT_MB; the Train page's 2 MB corpus limit is below it), plus
`FORM_OVERHEAD_MB` for the multipart form around the file, so nginx never refuses what
the page accepts. ``--debug-backend`` adds the ``X-BPE-Backend`` response header naming
the process that answered (for tests and debugging; it tells every client an internal
address, so it is off unless asked for).
"""
from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "deploy" / "nginx.conf.template"
STREAMLIT_CONFIG = ROOT / ".streamlit" / "config.toml"
FORM_OVERHEAD_MB = 1
DEBUG_HEADER = "add_header X-BPE-Backend $upstream_addr always;"


def upload_limit_mb(config: Path = STREAMLIT_CONFIG) -> int:
    """server.maxUploadSize from the app's Streamlit config (Streamlit's default is 200)."""
    with config.open("rb") as f:
        value = tomllib.load(f).get("server", {}).get("maxUploadSize", 200)
    if not isinstance(value, int) or value <= 0:
        raise ValueError(f"{config}: server.maxUploadSize must be a whole number of MB, got {value!r}")
    return value


def class_seconds() -> int:
    """How long the instructor cookie lives: as long as a class after its last action
    (BPE_CLASS_HOURS, default 3: classroom.open_store reads the same setting)."""
    sys.path.insert(0, str(ROOT))
    from classroom import DEFAULT_TTL_SECONDS, HOURS_SETTING, _hours
    hours = os.environ.get(HOURS_SETTING)
    return int(_hours(hours) * 3600) if hours else int(DEFAULT_TTL_SECONDS)


def render(*, state: str, listen: str, upstreams: str, debug_backend: bool = False,
           template: str | None = None, upload_mb: int | None = None) -> str:
    text = TEMPLATE.read_text() if template is None else template
    upload_mb = upload_limit_mb() if upload_mb is None else upload_mb
    fill = {
        "@STATE@": state, "@LISTEN@": listen, "@UPSTREAMS@": upstreams.rstrip("\n"),
        "@CLASS_SECONDS@": str(class_seconds()),
        "@UPLOAD_MB@": str(upload_mb), "@MAX_BODY_MB@": str(upload_mb + FORM_OVERHEAD_MB),
        "@DEBUG_HEADERS@": DEBUG_HEADER if debug_backend else "# (X-BPE-Backend: only with --debug-backend)",
    }
    for mark, value in fill.items():
        text = text.replace(mark, value)
    return text


def main(argv: list[str]) -> int:
    debug = "--debug-backend" in argv
    args = [a for a in argv if a != "--debug-backend"]
    if len(args) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    state, listen, lines = args
    Path(state, "nginx.conf").write_text(render(state=state, listen=listen, upstreams=lines, debug_backend=debug))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
