import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import type { Browser } from 'playwright-core';
import { allNodes, chartOf } from '../../actors/statecharts/chart.js';
import { toMermaid } from '../../actors/statecharts/mermaid.js';
import { MACHINES, loadMachine } from '../support/machines.js';
import { chromiumRequirement, launchChromium } from '../support/browser.js';

const mermaidBundle = createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');

describe.skipIf(!chromiumRequirement.ok)(`Mermaid export renders in Chromium (${chromiumRequirement.reason})`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('every registered machine is a valid stateDiagram-v2 that mermaid draws', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setContent('<!doctype html><html><body><div id="out"></div></body></html>');
    await page.addScriptTag({ path: mermaidBundle });
    for (const name of Object.keys(MACHINES)) {
      const chart = chartOf(name, (await loadMachine(name))!);
      const text = toMermaid(chart);
      const result = await page.evaluate(async ({ text, name }) => {
        const m = (window as unknown as { mermaid: { initialize(o: object): void; parse(t: string): Promise<unknown>; render(id: string, t: string): Promise<{ svg: string }> } }).mermaid;
        m.initialize({ startOnLoad: false, securityLevel: 'strict' });
        try {
          await m.parse(text);
          const { svg } = await m.render(`m_${name}`, text);
          return { ok: true, svg };
        } catch (e) {
          return { ok: false, error: String((e as Error).message ?? e) };
        }
      }, { text, name });
      expect(result.error, `${name}:\n${text}`).toBeUndefined();
      expect(result.ok).toBe(true);
      // Every state's label is drawn.
      for (const child of chart.root.children) expect(result.svg).toContain(child.key);
      // A leaf's description is drawn under its name (composite states carry theirs as a note).
      for (const leaf of allNodes(chart).filter((n) => n.children.length === 0 && n.description && n !== chart.root)) {
        expect(result.svg, `${name}: ${leaf.id}`).toContain(leaf.description!.replace(/\s*[:;]\s*/g, ', ').split(/\s+/).slice(0, 3).join(' '));
      }
    }
    await context.close();
  });
});
