"""What "fits a phone" means in the browser tests: a 390x844 screen, and a check that
nothing on the page is wider than it.

`too_wide(page)` lists what sticks out past the right edge of the viewport:
- the document itself (`document.documentElement.scrollWidth > innerWidth`: the page
  would scroll sideways);
- any chart, svg or canvas whose right edge is past the viewport (cut at the edge);
- any other element past the edge, unless it sits in a box that scrolls sideways by
  design and itself fits (a data table's grid, a row of tabs);
- any text cut with an ellipsis in the page's main area (a clipped link label).
Each entry names the element (its `st-key-...` box or test id) so a failure says where.
"""
from __future__ import annotations

PHONE = {"width": 390, "height": 844}

_TOO_WIDE = """() => {
  const limit = window.innerWidth + 1, out = [];
  const where = el => {
    const box = el.closest('[class*="st-key-"]');
    const key = box ? [...box.classList].find(c => c.startsWith('st-key-')) : '';
    const tid = el.closest('[data-testid]');
    return [key, tid ? tid.dataset.testid : '', el.tagName].filter(Boolean).join(' ');
  };
  const scrollsSideways = el => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const ox = getComputedStyle(a).overflowX;
      if ((ox === 'auto' || ox === 'scroll') && a.getBoundingClientRect().right <= limit) return true;
    }
    return false;
  };
  if (document.documentElement.scrollWidth > window.innerWidth)
    out.push(['document', document.documentElement.scrollWidth]);
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) continue;
    const drawn = el.matches('canvas, svg, [data-testid="stVegaLiteChart"]');
    if (r.right > limit && (drawn || !scrollsSideways(el))) out.push([where(el), Math.round(r.right)]);
  }
  const main = document.querySelector('[data-testid="stMain"]') || document.body;
  for (const el of main.querySelectorAll('*')) {
    const cs = getComputedStyle(el);
    if (cs.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
      out.push(['clipped text: ' + where(el), el.textContent.slice(0, 40)]);
  }
  return out;
}"""


def open_phone(browser):
    """A new phone-sized context (its own session) and page; close the context after."""
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(60_000)
    return context, page


def too_wide(page) -> list:
    """Everything that does not fit the viewport's width (empty when the page fits)."""
    return page.evaluate(_TOO_WIDE)
