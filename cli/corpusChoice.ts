import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { isKeySet, type LoadOptions } from '../core/config/load.js';
import type { PalabreConfig } from '../actors/palabreConfig.js';

/**
 * Which folder the docs assistant answers from, the same way for `index`, `ask`, `serve` and
 * `doctor`: --corpus DIR, else CORPUS_DIR when it is set, else the folder `palabre index DIR`
 * indexed last (remembered in DATA_DIR/corpus.json), else CORPUS_DIR's default (docs/).
 */
type CorpusSource = 'flag' | 'CORPUS_DIR' | 'remembered' | 'default';

export interface CorpusChoice {
  dir: string;
  source: CorpusSource;
  /** A sentence for the user when the choice is not what CORPUS_DIR says (printed on stderr). */
  note?: string;
}

const Remembered = z.object({ root: z.string().min(1), indexedAt: z.string() });
type Remembered = z.infer<typeof Remembered>;

export function rememberedCorpusFile(dataDir: string): string {
  return join(resolve(dataDir), 'corpus.json');
}

/** The folder `palabre index` indexed last, or undefined (none, unreadable, or the folder is gone). */
function rememberedCorpus(dataDir: string): Remembered | undefined {
  const file = rememberedCorpusFile(dataDir);
  if (!existsSync(file)) return undefined;
  try {
    const parsed = Remembered.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success && existsSync(parsed.data.root) ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Records `root` as the default corpus (write then rename: never half a file). */
export function rememberCorpus(dataDir: string, root: string, now = new Date()): void {
  const file = rememberedCorpusFile(dataDir);
  mkdirSync(resolve(dataDir), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ root: resolve(root), indexedAt: now.toISOString() } satisfies Remembered)}\n`);
  renameSync(tmp, file);
}

export function chooseCorpus(config: Pick<PalabreConfig, 'CORPUS_DIR' | 'DATA_DIR'>, opts: { flag?: string; load?: LoadOptions } = {}): CorpusChoice {
  if (opts.flag) return { dir: opts.flag, source: 'flag' };
  if (isKeySet('CORPUS_DIR', opts.load ?? {})) return { dir: config.CORPUS_DIR, source: 'CORPUS_DIR' };
  const remembered = rememberedCorpus(config.DATA_DIR);
  // The folder indexed last is the default one anyway: nothing worth a note.
  if (remembered && remembered.root === resolve(config.CORPUS_DIR)) return { dir: config.CORPUS_DIR, source: 'default' };
  if (remembered) {
    return {
      dir: remembered.root,
      source: 'remembered',
      note: `corpus: ${remembered.root} (indexed last by \`palabre index\`; CORPUS_DIR is unset — set it to choose another folder)`,
    };
  }
  return { dir: config.CORPUS_DIR, source: 'default' };
}
