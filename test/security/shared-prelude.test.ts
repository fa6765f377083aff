/**
 * The SDK and zod are not in plugin bundles: every isolate's prelude holds one copy, and the
 * bundle's own imports are bound to it before any plugin code runs. That hand-over must not become
 * a module loader: plugin code sees no table of modules and no `require`, so it cannot fetch a
 * host module by a name computed at run time. And the one zod must serve both the plugin and the
 * SDK: a second copy would lose what `.describe()` and `.meta()` record.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { bundlePlugin } from '@toolhost/host/internal';
import { describe, expect, it } from 'vitest';
import { attackPlugin, expectHealthy, HEADER, HEALTHY_SOURCE, reportOf, useHarness } from './helpers.js';

/** Probes of what plugin code can reach; `where` says when they ran. */
const PROBES = `({
  table: typeof (globalThis as any).__toolhost_shared,
  globals: Object.getOwnPropertyNames(globalThis).filter((name) => /^__toolhost_(?!register$)|^(__)?(require|module|exports)$/.test(name)),
  require: typeof (globalThis as any).require,
  indirectRequire: (0, eval)('typeof require'),
  module: (0, eval)('typeof module'),
})`;

describe('the shared prelude of plugin isolates', () => {
  const h = useHarness();

  it('hands a plugin no module table and no require: no host module can be fetched by a computed name', async () => {
    const { session } = await h.start({
      plugins: {
        fetcher: attackPlugin(
          'fetcher',
          `
          const names = ['zod', '@toolhost/plugin-sdk', '@toolhost/plugin-sdk/runtime', 'node:fs', 'isolated-vm'];
          const byRequire = names.map((name) => { try { return typeof require(name); } catch (e: any) { return 'refused'; } });
          const byImport = await Promise.all(names.map((name) => import(name).then(() => 'loaded', () => 'refused')));
          return JSON.stringify({ atLoad, atCall: ${PROBES}, byRequire, byImport });
          `,
          { pre: `const atLoad = ${PROBES};` },
        ),
        healthy: HEALTHY_SOURCE,
      },
    });
    const report = reportOf<{
      atLoad: Record<string, unknown>;
      atCall: Record<string, unknown>;
      byRequire: string[];
      byImport: string[];
    }>(await session.call('attack', {}));
    const nothing = {
      table: 'undefined',
      globals: [],
      require: 'undefined',
      indirectRequire: 'undefined',
      module: 'undefined',
    };
    expect(report.atLoad, JSON.stringify(report)).toEqual(nothing);
    expect(report.atCall).toEqual(nothing);
    expect(report.byRequire).toEqual(['refused', 'refused', 'refused', 'refused', 'refused']);
    expect(report.byImport).toEqual(['refused', 'refused', 'refused', 'refused', 'refused']);
    await expectHealthy(session);
  });

  it("refuses a plugin's import of the prelude's module table", async () => {
    const root = await h.project();
    const { host } = await h.start({
      root,
      plugins: {
        table: attackPlugin('table', 'return String(Object.keys(table))', {
          pre: `import table from 'toolhost:shared-table';`,
        }),
        healthy: HEALTHY_SOURCE,
      },
    });
    const built = await bundlePlugin(path.join(root, 'plugins', 'table', 'index.ts'));
    expect(built.ok).toBe(false);
    if (!built.ok)
      expect(built.error).toMatch(/index\.ts:\d+:\d+: Could not resolve "toolhost:shared-table"/);
    expect(host.plugins.find((p) => p.id === 'table')?.diagnostics.join('\n')).toMatch(
      /toolhost:shared-table/,
    );
    await expectHealthy(host.session());
  });

  it('refuses a plugin file named like the generated entry, which could otherwise reach the table', async () => {
    const root = await h.project();
    const dir = path.join(root, 'plugins', 'poser');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, '<toolhost-entry>'), `export { pick } from 'toolhost:shared-table';\n`);
    await writeFile(
      path.join(dir, 'index.ts'),
      attackPlugin('poser', `return String(pick('zod', 'z'))`, {
        pre: `import { pick } from './<toolhost-entry>';`,
      }),
    );
    const built = await bundlePlugin(path.join(dir, 'index.ts'));
    expect(built.ok).toBe(false);
    if (!built.ok) expect(built.error).toMatch(/import "\.\/<toolhost-entry>" is refused: only \.ts/);
  });

  it('keeps every description a plugin gives with zod, whichever zod entry point it imports', async () => {
    const source = `${HEADER}import * as z4 from 'zod/v4';
import * as zm from 'zod/mini';
import { globalRegistry } from 'zod/v4/core';
const region = z.string();
globalRegistry.add(region, { title: 'Region', description: 'the region' });
export default definePlugin({
  id: 'described',
  tools: [
    defineTool({
      name: 'forecast',
      description: 'Weather',
      input: z.object({
        city: z.string().describe('the city'),
        days: z.number().int().meta({ description: 'days ahead' }),
        unit: z4.enum(['c', 'f']).describe('the unit'),
        region,
        note: zm.optional(zm.string().check(zm.maxLength(9))).register(globalRegistry, { description: 'a note' }),
      }),
      execute: () => 'ok',
    }),
    defineTool({
      name: 'almanac',
      description: 'Dates',
      input: z4.object({ day: z4.string().describe('the day') }),
      execute: () => 'ok',
    }),
  ],
});
`;
    const { host } = await h.start({ plugins: { described: source } });
    const tool = host.plan().visible.find((t) => t.descriptor.name === 'forecast');
    expect(tool, JSON.stringify(host.plugins)).toBeDefined();
    expect(tool?.descriptor.inputSchema.properties).toMatchObject({
      city: { type: 'string', description: 'the city' },
      days: { type: 'integer', description: 'days ahead' },
      unit: { enum: ['c', 'f'], description: 'the unit' },
      region: { type: 'string', description: 'the region', title: 'Region' },
      note: { type: 'string', maxLength: 9, description: 'a note' },
    });
    const almanac = host.plan().visible.find((t) => t.descriptor.name === 'almanac');
    expect(almanac?.descriptor.inputSchema.properties).toEqual({
      day: { type: 'string', description: 'the day' },
    });
  });

  it('points a plugin that uses z.locales to the import that bundles one locale, which works', async () => {
    const german = `import de from 'zod/v4/locales/de.js';\n${attackPlugin(
      'german',
      `
      let advice = '';
      try { z.locales.de(); } catch (error: any) { advice = error.message; }
      z.config(de());
      const checked = z.string().safeParse(1);
      return JSON.stringify({ advice, message: checked.success ? 'parsed' : checked.error.issues[0]?.message });
      `,
    )}`;
    const { session } = await h.start({ plugins: { german } });
    const report = reportOf<{ advice: string; message: string }>(await session.call('attack', {}));
    expect(report.advice).toBe(
      "zod's locales are not in the toolhost sandbox's shared zod: instead of z.locales.de(), import de from 'zod/v4/locales/de.js' and call z.config(de())",
    );
    // zod's German message for a wrong type: "Ungültige Eingabe: erwartet string, erhalten number".
    expect(report.message).toMatch(/^Ungültige Eingabe/);
  });
});
