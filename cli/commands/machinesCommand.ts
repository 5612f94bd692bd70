import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { loadMachine } from '../../core/machineRegistry.js';
import { allMachines } from '../../actors/serve.js';
import { chartOf, type Chart } from '../../actors/statecharts/chart.js';
import { toMermaid } from '../../actors/statecharts/mermaid.js';
import { toScxml } from '../../actors/statecharts/scxml.js';
import { chartToSvg } from '../../actors/statecharts/svg.js';
import { processIo, type CliIo } from '../io.js';
import { EXIT } from '../definitions.js';
import { parseCommand, usageError } from '../parse.js';

const FORMATS = ['json', 'mermaid', 'scxml', 'svg'] as const;
const Format = z.enum(FORMATS);
type Format = z.infer<typeof Format>;
const EXT: Record<Format, string> = { json: 'json', mermaid: 'mmd', scxml: 'scxml', svg: 'svg' };

async function render(chart: Chart, format: Format): Promise<string> {
  switch (format) {
    case 'json':
      return `${JSON.stringify(chart, null, 2)}\n`;
    case 'mermaid':
      return toMermaid(chart);
    case 'scxml':
      return toScxml(chart);
    case 'svg':
      return `${await chartToSvg(chart)}\n`;
  }
}

export async function run(args: string[], io: CliIo = processIo()): Promise<number> {
  // The machines the surfaces of `palabre serve` declare, and the runtime's own chart.
  const registry = await allMachines();
  const machineNames = (): string[] => Object.keys(registry);
  const parsed = parseCommand('machines', args, io, `Machines: ${machineNames().join(', ')}`);
  if ('exit' in parsed) return parsed.exit;
  const format = Format.safeParse(parsed.string('format') ?? 'json');
  if (!format.success) return usageError('machines', io, `--format must be one of ${FORMATS.join(', ')}`);
  const names = parsed.positionals.length > 0 ? parsed.positionals : machineNames();
  const unknown = names.filter((n) => !machineNames().includes(n));
  if (unknown.length > 0) {
    io.stderr.write(`unknown machine(s): ${unknown.join(', ')}. Known: ${machineNames().join(', ')}\n`);
    return EXIT.usage;
  }
  const outDir = parsed.string('out');
  if (outDir) mkdirSync(outDir, { recursive: true });
  const printed: string[] = [];
  for (const name of names) {
    const machine = await loadMachine(registry, name);
    if (!machine) continue;
    const text = await render(chartOf(name, machine), format.data);
    if (outDir) {
      const file = join(outDir, `${name}.${EXT[format.data]}`);
      writeFileSync(file, text);
      io.stderr.write(`wrote ${file}\n`);
    } else if (format.data === 'json' && names.length > 1) {
      printed.push(text.trim());
    } else {
      io.stdout.write(names.length > 1 ? `%% ${name}\n${text}\n` : text);
    }
  }
  // Several machines as JSON: one valid JSON array rather than concatenated objects.
  if (printed.length > 0) io.stdout.write(`[\n${printed.join(',\n')}\n]\n`);
  return EXIT.ok;
}
