import { EndSensitivity, Modality, type GoogleGenAI, type LiveConnectConfig, type LiveServerMessage, type Session } from '@google/genai';
import type { Logger } from '../../core/log.js';
import type { InterlocutorEvent, Turn } from '../../machines/t2live.js';

/**
 * One T2 session's link to Gemini Live, across connections. A Live connection lives about 10
 * minutes: on `goAway` (or an unexpected close once a resumption handle is known) the link opens a
 * new connection with the last `sessionResumptionUpdate` handle and swaps to it, so one T2 session
 * outlives one connection. Audio arriving meanwhile still goes to the old connection, which stays
 * valid until it closes; audio during a gap is queued (bounded).
 */

export const INPUT_MIME = 'audio/pcm;rate=16000';

/**
 * One candidate chunk as the Live API's `realtimeInput` message: the same characters
 * `Session.sendRealtimeInput({ audio: { data, mimeType: INPUT_MIME } })` sends. The SDK's method
 * runs its generic converters per call (seven path look-ups and writes, a Vertex/Gemini branch,
 * then JSON.stringify of the result): about 4–5 µs and 1 KB of garbage per 20 ms chunk, at 50
 * chunks a second per session (bench/journal/2026-12-performance.md, T2). For an audio blob both converters return
 * `{ audio: <the blob object> }` unchanged, so the message is fixed text around the base64, which
 * needs no JSON escaping: encoded here, or the client's own, checked against the base64 alphabet
 * [A-Za-z0-9+/=] by transports/ws/t2liveFrames.ts. It goes out through `Session.conn.send`, the public
 * `readonly conn` of the SDK's Session, the method `sendRealtimeInput` itself ends with.
 * test/t2/live.fake.test.ts checks against the wire fake that both give the same frame, byte for byte.
 */
export function realtimeAudioMessage(base64: string): string {
  return AUDIO_PREFIX + base64 + AUDIO_SUFFIX;
}
const AUDIO_PREFIX = '{"realtimeInput":{"audio":{"data":"';
const AUDIO_SUFFIX = `","mimeType":"${INPUT_MIME}"}}}`;
/** Audio held while no connection is usable: 10 s of 16 kHz PCM16. */
const MAX_QUEUED_BYTES = 10 * 16000 * 2;
/**
 * Resumed connections closed before Gemini said anything on them, in a row, before giving up: a
 * handle Gemini refuses (expired, unknown) must end in `interlocutor.failed`, not in a loop.
 */
const MAX_SILENT_RESUMES = 3;

/** The setup Gemini Live is sent, with transcriptions and resumption (docs/t2-live.md#configuration). */
export function liveConfig(systemPrompt: string, handle?: string): LiveConnectConfig {
  return {
    responseModalities: [Modality.AUDIO],
    systemInstruction: systemPrompt,
    realtimeInputConfig: {
      automaticActivityDetection: {
        endOfSpeechSensitivity: EndSensitivity.END_SENSITIVITY_LOW,
        silenceDurationMs: 2000,
      },
    },
    inputAudioTranscription: {},
    outputAudioTranscription: {},
    sessionResumption: handle ? { handle } : {},
  };
}

export interface LiveLinkOptions {
  ai: GoogleGenAI;
  model: string;
  systemPrompt: string;
  log: Logger;
  /** Link events to the chart: ready, resumed, failed. */
  send: (e: InterlocutorEvent) => void;
  /** Every message of the connection in use (the older one's are dropped once swapped). */
  onMessage: (msg: LiveServerMessage) => void;
  /** Each new resumption handle Gemini gives (stored: another instance may resume from it). */
  onHandle?: (handle: string) => void;
  /**
   * A session taken over from another instance: the first connection resumes from its last
   * stored handle; when Gemini refuses it (expired, unknown), a new Live session is opened and
   * primed with the transcript so far.
   */
  resumeFrom?: { handle: string | null; transcript: readonly Turn[] };
}

export class GeminiLiveLink {
  private current: Session | undefined;
  private handle: string | undefined;
  private stopped = false;
  private ready = false;
  private swapping = false;
  private queue: string[] = [];
  private queuedBytes = 0;
  private silentResumes = 0;

  constructor(private readonly o: LiveLinkOptions) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Opens the first connection; `interlocutor.ready` once it is usable. */
  open(): void {
    this.firstConnection()
      .then((s) => {
        if (this.stopped) {
          s.close();
          return;
        }
        this.current = s;
        this.ready = true;
        this.flush();
        this.o.send({ type: 'interlocutor.ready' });
      })
      .catch((err: unknown) => {
        if (!this.stopped) this.o.send({ type: 'interlocutor.failed', message: (err as Error).message });
      });
  }

  /**
   * The first connection: a new Live session, or, for a session taken over, one resumed from the
   * stored handle — else a new one primed with the transcript so far (said in the session's log).
   */
  private async firstConnection(): Promise<Session> {
    const from = this.o.resumeFrom;
    if (!from) return this.connect();
    if (from.handle) {
      try {
        const s = await this.connect(from.handle, true);
        this.handle = from.handle;
        this.o.log.info({ turns: from.transcript.length }, 't2 session taken over: Gemini Live resumed with the stored handle');
        return s;
      } catch (err) {
        this.o.log.warn({ err: (err as Error).message, turns: from.transcript.length }, 't2 session taken over: Gemini refused the stored handle; a new Live session is primed with the transcript so far');
      }
    } else this.o.log.warn({ turns: from.transcript.length }, 't2 session taken over without a stored handle: a new Live session is primed with the transcript so far');
    const s = await this.connect();
    const turns = from.transcript.filter((t) => t.text.trim().length > 0).map((t) => ({ role: t.speaker === 'candidate' ? 'user' : 'model', parts: [{ text: t.text }] }));
    // The dialogue so far as context, no turn to answer: the model waits for the candidate.
    if (turns.length > 0) s.sendClientContent({ turns, turnComplete: false });
    return s;
  }

  /** A candidate chunk, sent now or queued while no connection is usable. */
  sendAudio(pcm: Uint8Array, base64?: string): void {
    if (this.stopped) return;
    // The Live API takes base64 inside JSON: encoded once here, or passed through as the
    // client sent it (JSON audio frames), never decoded and re-encoded.
    const data = base64 ?? Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');
    if (this.current && this.ready) this.current.conn.send(realtimeAudioMessage(data));
    else if (this.queuedBytes < MAX_QUEUED_BYTES) {
      this.queue.push(data);
      this.queuedBytes += pcm.byteLength;
    }
  }

  sendText(text: string): void {
    this.current?.sendClientContent({ turns: text, turnComplete: true });
  }

  endAudio(): void {
    this.current?.sendRealtimeInput({ audioStreamEnd: true });
  }

  stop(): void {
    this.stopped = true;
    try {
      this.current?.close();
    } catch {
      // the socket may already be gone
    }
  }

  private received(msg: LiveServerMessage): void {
    // Gemini answered on this connection (setupComplete included): the handle was accepted.
    this.silentResumes = 0;
    this.o.onMessage(msg);
    if (msg.sessionResumptionUpdate?.resumable && msg.sessionResumptionUpdate.newHandle) {
      this.handle = msg.sessionResumptionUpdate.newHandle;
      this.o.onHandle?.(this.handle);
    }
    if (msg.goAway) {
      this.o.log.info({ timeLeft: msg.goAway.timeLeft }, 'gemini live goAway: resuming on a new connection');
      void this.resume();
    }
  }

  private closed(e: { code: number; reason: string }): void {
    this.o.log.warn({ code: e.code, reason: e.reason }, 'gemini live connection closed');
    if (this.handle && this.silentResumes < MAX_SILENT_RESUMES) {
      this.silentResumes++;
      void this.resume();
    } else this.o.send({ type: 'interlocutor.failed', message: `connexion Gemini fermée (${e.code})` });
  }

  /**
   * `awaitSetup`: resolve only once Gemini answered the setup (a handle from another instance
   * may be refused after the socket opened: that close then fails the connect).
   */
  private async connect(resumeHandle?: string, awaitSetup = false): Promise<Session> {
    // The callbacks can fire before connect() resolves: they compare against this holder.
    const mine: { session?: Session; answered?: boolean } = {};
    let answered: () => void = () => undefined;
    const setup = new Promise<void>((resolve) => (answered = resolve));
    // A socket closed before the setup completes (a refused handle) fails the connect here: SDK
    // releases before 3.x wait for a setupComplete that never comes.
    let closedEarly: (err: Error) => void = () => undefined;
    const early = new Promise<never>((_, reject) => (closedEarly = reject));
    const connecting = this.o.ai.live.connect({
      model: this.o.model,
      config: liveConfig(this.o.systemPrompt, resumeHandle),
      callbacks: {
        onmessage: (m) => {
          if (!mine.answered) {
            mine.answered = true;
            answered();
          }
          if (!this.stopped && mine.session === this.current) this.received(m);
        },
        onerror: (e) => this.o.log.warn({ err: e.message }, 'gemini live socket error'),
        onclose: (e) => {
          if (!mine.session || (awaitSetup && !mine.answered)) closedEarly(new Error(`Live connection closed before setup completed (code ${e.code}): ${e.reason || 'no reason'}`));
          else if (!this.stopped && mine.session === this.current) this.closed(e);
        },
      },
    });
    // Neither may surface as an unhandled rejection once the other has settled the race.
    connecting.catch(() => undefined);
    early.catch(() => undefined);
    mine.session = await Promise.race([connecting, early]);
    if (awaitSetup) await Promise.race([setup, early]);
    return mine.session;
  }

  private flush(): void {
    if (!this.current) return;
    for (const data of this.queue) this.current.conn.send(realtimeAudioMessage(data));
    this.queue = [];
    this.queuedBytes = 0;
  }

  /** A new connection with the last handle, swapped in once open; the old one is closed then. */
  private async resume(): Promise<void> {
    if (this.swapping || this.stopped) return;
    this.swapping = true;
    const old = this.current;
    try {
      const next = await this.connect(this.handle);
      if (this.stopped) {
        next.close();
        return;
      }
      this.current = next;
      this.flush();
      this.o.send({ type: 'interlocutor.resumed', handle: this.handle ?? '' });
      try {
        old?.close();
      } catch {
        // already closed
      }
    } catch (err) {
      if (!this.stopped) this.o.send({ type: 'interlocutor.failed', message: `reprise de session impossible: ${(err as Error).message}` });
    } finally {
      this.swapping = false;
    }
  }
}
