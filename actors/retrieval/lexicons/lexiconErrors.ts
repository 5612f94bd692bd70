/** A dictionary file that is not in the format its reader expects: names the file and the line. */
export class LexiconError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    detail: string,
  ) {
    super(`dictionary file ${file}${line > 0 ? `, line ${line}` : ''}: ${detail}`);
    this.name = 'LexiconError';
  }
}
