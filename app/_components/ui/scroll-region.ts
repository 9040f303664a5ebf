"use client";

import { useCallback, useState } from "react";

/** What a scroll region is called: its own label, or the id of the element that names it (a table's caption). */
export type ScrollRegionName = { label: string } | { labelledBy: string };

/**
 * For an element that scrolls its own content (`overflow-auto`: a table wider than a phone, a long payload). While the
 * content does not fit, the element can be reached by keyboard: a tab stop (arrow keys then scroll it), a `region`
 * named by `name` so a screen reader says what it is, with the focus ring of every focusable element (globals.css
 * `:focus-visible`). While everything fits it stays a plain element: no extra tab stop, no extra landmark.
 * (WCAG 2.1.1 Keyboard; axe's `scrollable-region-focusable`.)
 *
 * `props` go on the element that has `ref`; they change when the window is resized or the content grows or shrinks.
 */
export function useScrollRegion<T extends HTMLElement>(name: ScrollRegionName) {
  const [scrolls, setScrolls] = useState(false);
  // A callback ref, so an element rendered later (after loading) or replaced is observed too; React 19 runs the cleanup.
  const ref = useCallback((element: T | null) => {
    if (!element) return;
    const measure = () => setScrolls(element.scrollWidth > element.clientWidth || element.scrollHeight > element.clientHeight);
    // The box changes size with the window; its content with rows loaded or expanded and columns hidden at a breakpoint.
    const resizes = new ResizeObserver(measure);
    const observeBoxes = () => {
      resizes.observe(element);
      for (const child of element.children) resizes.observe(child);
    };
    const mutations = new MutationObserver(() => {
      observeBoxes();
      measure();
    });
    observeBoxes();
    mutations.observe(element, { childList: true, subtree: true, characterData: true });
    measure();
    return () => {
      resizes.disconnect();
      mutations.disconnect();
    };
  }, []);
  const named = "label" in name ? { "aria-label": name.label } : { "aria-labelledby": name.labelledBy };
  const props = scrolls ? { tabIndex: 0, role: "region", ...named } : {};
  return { ref, scrolls, props };
}
