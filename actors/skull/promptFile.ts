import { readFileSync } from 'node:fs';

/**
 * Reads the default prompt file (the spec's /opt/Skull/config/prompt.txt, SKULL_PROMPT_FILE).
 * A missing, unreadable or empty file yields `fallback`, so a lost file never stops the service.
 */
export function readPromptFile(path: string, fallback: string): { text: string; fromFile: boolean } {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return text ? { text, fromFile: true } : { text: fallback, fromFile: false };
  } catch {
    return { text: fallback, fromFile: false };
  }
}
