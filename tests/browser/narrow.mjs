// Checks both pages make at a phone's width (390 px): nothing wider than
// the screen unless it scrolls inside its own box, and chart labels drawn
// at a readable size.

// overflowing lists the elements that stick out of the viewport and are
// not inside a box that scrolls (or clips) them.
export async function overflowing(page) {
  return page.evaluate(() => {
    const W = document.documentElement.clientWidth;
    const scrolls = (e) => {
      for (let p = e.parentElement; p; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o === "auto" || o === "scroll" || o === "hidden") return p.getBoundingClientRect().right <= W + 0.5;
      }
      return false;
    };
    const out = [];
    if (document.documentElement.scrollWidth > W) out.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " > " + W);
    for (const e of document.body.querySelectorAll("*")) {
      if (e.closest("[hidden]") || e.getClientRects().length === 0) continue;
      const r = e.getBoundingClientRect();
      if (r.right > W + 0.5 && !scrolls(e)) out.push(`${e.tagName.toLowerCase()}#${e.id}.${e.className?.baseVal ?? e.className} right ${Math.round(r.right)}`);
    }
    return out.slice(0, 10);
  });
}

// smallLabels lists chart labels drawn under 11 px: the computed font
// size times the scale its SVG is drawn at.
export async function smallLabels(page) {
  return page.evaluate(() => {
    const out = [];
    for (const t of document.querySelectorAll("svg text")) {
      const svg = t.ownerSVGElement;
      const vb = svg.viewBox.baseVal;
      const scale = vb && vb.width ? svg.getBoundingClientRect().width / vb.width : 1;
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (px < 11) out.push(`${t.textContent} at ${px.toFixed(1)} px`);
    }
    return out.slice(0, 5);
  });
}
