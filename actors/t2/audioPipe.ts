/**
 * The audio path of one T2 session, both ways, outside the statechart's event queue.
 *
 * Audio is 50 chunks a second per direction and per session, and the chart does nothing with a
 * chunk but pass it on: as XState events each chunk cost a macrostep, an inspection event, a
 * `sendTo` and an `emit` (about a third of the proxy's CPU per chunk). So the chart only *gates*
 * this pipe by state — `session.live` opens it on entry and closes it on exit (named actions
 * `openAudio`/`closeAudio`, provided in wiring.ts) — and the chunks flow directly:
 *
 *   transport ─candidate()─▶ interlocutor (Gemini) first, then the recording
 *   interlocutor ─interlocutor()─▶ client socket first, then the recording
 *
 * Outside `live` (connecting, finishing…) chunks are dropped, exactly as the chart ignored
 * `client.audio`/`interlocutor.audio` there. Control events (transcripts, turns, interruptions,
 * idle activity) still go through the chart; a pipe call and an event sent right after it keep
 * their order, since both run synchronously.
 */

/** Sends one candidate chunk to the interlocutor; `base64` is the same bytes, when already encoded. */
export type InterlocutorAudioSender = (pcm: Uint8Array, base64?: string) => void;
export type ClientAudioSender = (pcm: Uint8Array) => void;

export interface AudioRecording {
  candidate(pcm: Uint8Array): void;
  interlocutor(pcm: Uint8Array): void;
}

/** The side the interlocutor actor sees. */
export interface InterlocutorAudioPort {
  /** Registers the actor's sender while it runs; returns the detach function. */
  attachInterlocutor(send: InterlocutorAudioSender): () => void;
  /** Model audio (PCM16 LE 24 kHz); false when the chart has the pipe closed (dropped). */
  interlocutor(pcm: Uint8Array): boolean;
}

/** The side the transport sees. */
export interface ClientAudioPort {
  attachClient(send: ClientAudioSender): void;
  /** Candidate audio (PCM16 LE 16 kHz, validated by the transport); false when dropped. */
  candidate(pcm: Uint8Array, base64?: string): boolean;
}

export class AudioPipe implements InterlocutorAudioPort, ClientAudioPort {
  private open = false;
  private toInterlocutor: InterlocutorAudioSender | undefined;
  private toClient: ClientAudioSender | undefined;
  private recordingFailed = false;

  /** @param onRecordingError the recording is best effort: a failure stops it, never the dialogue. */
  constructor(private readonly recording: AudioRecording, private readonly onRecordingError: (err: Error) => void) {}

  get isOpen(): boolean {
    return this.open;
  }

  /** Called only by the chart's entry/exit actions of `session.live`. */
  setOpen(open: boolean): void {
    this.open = open;
  }

  attachInterlocutor(send: InterlocutorAudioSender): () => void {
    this.toInterlocutor = send;
    return () => {
      if (this.toInterlocutor === send) this.toInterlocutor = undefined;
    };
  }

  attachClient(send: ClientAudioSender): void {
    this.toClient = send;
  }

  candidate(pcm: Uint8Array, base64?: string): boolean {
    if (!this.open) return false;
    // Forward first: the recording (resampling, mixing) must not delay the chunk.
    this.toInterlocutor?.(pcm, base64);
    this.record('candidate', pcm);
    return true;
  }

  interlocutor(pcm: Uint8Array): boolean {
    if (!this.open) return false;
    this.toClient?.(pcm);
    this.record('interlocutor', pcm);
    return true;
  }

  private record(voice: 'candidate' | 'interlocutor', pcm: Uint8Array): void {
    if (this.recordingFailed) return;
    try {
      this.recording[voice](pcm);
    } catch (err) {
      this.recordingFailed = true;
      this.onRecordingError(err as Error);
    }
  }
}
