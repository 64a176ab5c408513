// The automated accessibility check of the browser suite: axe-core (a development dependency) run inside the
// page. Its script is added as a tag, which the client's Content-Security-Policy (script-src 'self') refuses:
// the contexts it runs in are made with `bypassCSP` (axeContext), which changes nothing else of the page.
import { createRequire } from 'node:module';
import type { BrowserContextOptions, Page } from 'playwright-core';
import type { AxeResults, ImpactValue, Result } from 'axe-core';

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** Context options for a page axe will check (merged with the test's own: viewport, colorScheme…). */
export const axeContext = (opts: BrowserContextOptions = {}): BrowserContextOptions => ({ ...opts, bypassCSP: true });

/** What axe found on the page as it is now (WCAG 2.x A and AA rules, and axe's best practices). */
export async function runAxe(page: Page): Promise<AxeResults> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_SCRIPT });
  return page.evaluate(() =>
    (window as unknown as { axe: typeof import('axe-core') }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    }),
  );
}

const SERIOUS: ImpactValue[] = ['serious', 'critical'];

/** One line per violation and element: rule, impact, what it asks, where. */
export function describeViolations(violations: Result[]): string[] {
  return violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help} — ${n.target.join(' ')} ${n.failureSummary?.replace(/\s+/g, ' ') ?? ''}`));
}

/** The serious and critical violations on the page, described (empty when there are none). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await runAxe(page);
  return describeViolations(violations.filter((v) => v.impact && SERIOUS.includes(v.impact)));
}

/**
 * The contrast of each placeholder on the page against the background it is drawn on (the first ancestor,
 * the field included, whose background is not transparent): WCAG's ratio, 1 to 21.
 */
export function placeholderContrasts(page: Page): Promise<Array<{ field: string; color: string; background: string; ratio: number }>> {
  return page.evaluate(() => {
    const rgb = (value: string) => (value.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r, g, b]: number[]) => {
      const [R, G, B] = [r, g, b].map((c) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * R + 0.7152 * G + 0.0722 * B;
    };
    const backgroundOf = (el: Element | null): string => {
      for (let at = el; at; at = at.parentElement) {
        const bg = getComputedStyle(at).backgroundColor;
        const parts = rgb(bg);
        if (parts.length === 3 || (parts.length === 4 && parts[3] > 0)) return bg;
      }
      return 'rgb(255, 255, 255)';
    };
    return [...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input[placeholder], textarea[placeholder]')].map((el) => {
      const color = getComputedStyle(el, '::placeholder').color;
      const background = backgroundOf(el);
      // A translucent colour is seen blended over the background.
      const [r, g, bl, alpha = 1] = rgb(color);
      const under = rgb(background);
      const seen = [r, g, bl].map((c, i) => alpha * c + (1 - alpha) * under[i]);
      const [a, b] = [luminance(seen), luminance(under)].sort((x, y) => y - x);
      return { field: el.getAttribute('aria-label') ?? el.labels?.[0]?.textContent ?? el.placeholder, color, background, ratio: (a + 0.05) / (b + 0.05) };
    });
  });
}
