/**
 * Socket writes of an MQTT connection (core/tuning/holdWritesPerTurn.ts): what each
 * write hands to the kernel is recorded by wrapping the socket's own `_write`/`_writev` (the bytes
 * still go out).
 */
export const PUBACK = 0x40;

type Chunk = { chunk: Buffer | string };
export type Writes = Buffer[];

export function recordWrites(stream: unknown): Writes {
  const s = stream as {
    _write: (chunk: Buffer, encoding: BufferEncoding, cb: (err?: Error | null) => void) => void;
    _writev?: (chunks: Chunk[], cb: (err?: Error | null) => void) => void;
  };
  const writes: Writes = [];
  const write = s._write.bind(s);
  s._write = (chunk, encoding, cb) => {
    writes.push(Buffer.from(chunk));
    write(chunk, encoding, cb);
  };
  const writev = s._writev?.bind(s);
  if (writev) {
    s._writev = (chunks, cb) => {
      writes.push(Buffer.concat(chunks.map((c) => Buffer.from(c.chunk))));
      writev(chunks, cb);
    };
  }
  return writes;
}
