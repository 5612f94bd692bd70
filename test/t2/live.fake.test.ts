import { describe, expect, it, afterEach, vi } from 'vitest';
import { GoogleGenAI } from '@google/genai';
import { createActor, waitFor } from 'xstate';
import { geminiInterlocutor } from '../../actors/t2/geminiInterlocutor.js';
import { INPUT_MIME, liveConfig } from '../../actors/t2/geminiLiveLink.js';
import { realtimeAudioMessage } from '../../actors/t2/geminiLiveLink.js';
import { buildSystemPrompt, T2_PROMPT_TEMPLATE } from '../../prompts/t2/interlocutorPrompt.js';
import { SEED_SUBJECTS } from '../../actors/t2/seedSubjects.js';
import { subjectInputSchema, type Subject } from '../../actors/t2/subjects.js';
import { silentLogger } from '../../core/log.js';
import { fakeTone, startGeminiLiveFake, type GeminiLiveFake } from '../fakes/geminiLive.js';
import { LiveClient, pcm16k, startT2, type T2Env } from './support.js';
import { setTuningOff } from '../../core/tuning/switches.js';

const REPLY = 'Le loyer est de 1 150 dollars par mois, sans les charges, et il est payable le premier de chaque mois.';

let env: T2Env | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('Gemini Live through the real SDK against the wire fake', () => {
  it('a candidate chunk leaves as the frame the SDK’s sendRealtimeInput writes, byte for byte (Developer API and Vertex AI)', async () => {
    const fake = await startGeminiLiveFake();
    try {
      const clients = [
        new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: fake.baseUrl, apiVersion: 'v1beta' } }),
        new GoogleGenAI({ vertexai: true, project: 'p', location: 'europe-west1', apiKey: 'k', httpOptions: { baseUrl: fake.baseUrl, apiVersion: 'v1' } }),
      ];
      // Both base64 paddings: 640 bytes end in '==', 638 in '='.
      const chunks = [pcm16k(20, 3), pcm16k(20, 5).subarray(0, 638)];
      for (const [i, ai] of clients.entries()) {
        const session = await ai.live.connect({ model: 'gemini-live', config: liveConfig('x'), callbacks: { onmessage: () => undefined } });
        const [conn] = (await fake.waitForSetups(i + 1)).slice(i);
        for (const chunk of chunks) {
          const data = chunk.toString('base64');
          session.sendRealtimeInput({ audio: { data, mimeType: INPUT_MIME } });
          session.conn.send(realtimeAudioMessage(data));
        }
        await vi.waitFor(() => expect(conn!.rawMessages).toHaveLength(5));
        const [, sdk1, ours1, sdk2, ours2] = conn!.rawMessages;
        expect(ours1).toBe(sdk1);
        expect(ours2).toBe(sdk2);
        expect(Buffer.concat(conn!.audioChunks).equals(Buffer.concat([chunks[0]!, chunks[0]!, chunks[1]!, chunks[1]!]))).toBe(true);
        session.close();
      }
    } finally {
      await fake.close();
    }
  });

  it('sends the setup frame of spec §6 step 7, field by field, with the §3 prompt substituted', async () => {
    env = await startT2({ gemini: true, env: { T2_LIVE_MODEL: 'gemini-live-2.5-flash-native-audio' } });
    const token = await env.mint('premium');
    const c = await LiveClient.open(env, { token, sujet: 'appartement-centre-ville' });
    await c.until(() => c.states().includes('listening'), 'listening');
    const conn = env.fake!.connections[0]!;
    expect(conn.key).toBe('fake-key');
    expect(conn.apiVersion).toBe('v1beta');
    const setup = conn.setup as Record<string, unknown>;
    expect(setup.model).toBe('models/gemini-live-2.5-flash-native-audio');
    expect(setup.generationConfig).toEqual({ responseModalities: ['AUDIO'] });
    expect(setup.realtimeInputConfig).toEqual({ automaticActivityDetection: { endOfSpeechSensitivity: 'END_SENSITIVITY_LOW', silenceDurationMs: 2000 } });
    expect(setup.inputAudioTranscription).toEqual({});
    expect(setup.outputAudioTranscription).toEqual({});
    expect(setup.sessionResumption).toEqual({});
    const prompt = (setup.systemInstruction as { parts: Array<{ text: string }> }).parts[0]!.text;
    const subject = { ...subjectInputSchema.parse(SEED_SUBJECTS[0]), id: 'appartement-centre-ville' } as Subject;
    expect(prompt).toBe(buildSystemPrompt(subject));
    expect(prompt.startsWith('RÔLE : Tu incarnes un bailleur qui propose un appartement à louer.\nCONTEXTE : Vous avez vu une annonce')).toBe(true);
    expect(prompt).toContain('Le loyer est de 1 150 dollars par mois');
    // Every line of the §3 template after {contexte} is there, word for word.
    for (const line of T2_PROMPT_TEMPLATE.split('\n').slice(2)) expect(prompt).toContain(line);
    expect(prompt).not.toMatch(/\{role\}|\{contexte\}/);
    // The interlocutor never speaks first: nothing came from the model yet.
    expect(c.binary).toHaveLength(0);
    c.ws.close();
  });

  it('forwards candidate audio byte-exact, relays model audio, accumulates transcripts, then reports and closes 1000', async () => {
    const replyPcm = fakeTone(300);
    env = await startT2({
      gemini: {
        onConnection: (conn) =>
          conn.autoReply({
            afterAudioBytes: 9600,
            candidateText: (t) => (t === 0 ? ' Bonjour, quel est le loyer' : ' Et les charges'),
            replyText: (t) => (t === 0 ? REPLY : 'Le chauffage et l’eau chaude sont compris dans le loyer, mais l’électricité et internet restent à votre charge.'),
            replyPcm,
            partBytes: 1000,
            partsPerMessage: 4,
            usage: { promptTokenCount: 120, responseTokenCount: 40 },
          }),
      },
    });
    const token = await env.mint('premium', 'cand-42');
    const c = await LiveClient.open(env, { token, sujet: 'appartement-centre-ville' });
    await c.until(() => c.states().includes('listening'), 'listening');
    const sent: Buffer[] = [];
    for (let i = 0; i < 10; i++) {
      const chunk = pcm16k(60, i); // 1920 bytes
      sent.push(chunk);
      if (i % 2 === 0) c.ws.send(chunk);
      else c.send({ type: 'audio', data: chunk.toString('base64') });
    }
    await c.until(() => c.json.filter((m) => m.type === 'transcript' && m.speaker === 'interlocutor' && m.final).length >= 2, 'two final replies');
    const conn = env.fake!.connections[0]!;
    expect(Buffer.concat(conn.audioChunks).equals(Buffer.concat(sent))).toBe(true);
    expect(new Set(conn.audioMimeTypes)).toEqual(new Set(['audio/pcm;rate=16000']));
    // Model audio: 2 replies × 300 ms at 24 kHz, sent as several parts per message, all relayed.
    expect(Buffer.concat(c.binary).equals(Buffer.concat([replyPcm, replyPcm]))).toBe(true);
    expect(c.states()).toContain('interlocutor_speaking');
    c.send({ type: 'end' });
    const closed = await c.closed;
    expect(closed.code).toBe(1000);
    const report = c.find('report')!;
    expect(report.productionId).toEqual(expect.any(String));
    expect(report.audioUrl).toBe(`/t2/productions/${String(report.productionId)}/audio.wav`);
    const r = report.report as { t2: { rules: { replies: number; compliant: number }; phonologie: { evaluee: boolean } } };
    expect(r.t2.rules.replies).toBe(2);
    expect(r.t2.rules.compliant).toBe(2);
    expect(r.t2.phonologie.evaluee).toBe(false);
    // The correction got the accumulated transcript, speakers and order intact.
    const req = env.corrections.oral[0]!;
    expect(req.tache).toBe('EO_T2');
    expect(req.kind).toBe('EO_T2_LIVE');
    expect(req.candidateId).toBe('cand-42');
    expect(req.transcript.map((t) => [t.speaker, t.text])).toEqual([
      ['candidate', 'Bonjour, quel est le loyer'],
      ['interlocutor', REPLY],
      ['candidate', 'Et les charges'],
      ['interlocutor', 'Le chauffage et l’eau chaude sont compris dans le loyer, mais l’électricité et internet restent à votre charge.'],
    ]);
    expect(req.meta).toMatchObject({ usage: { promptTokens: 240, responseTokens: 80 } });
    expect(req.audioPath).toMatch(/\.wav$/);
    // The owner downloads the WAV; another candidate gets 404, no token 401.
    const wav = await fetch(`${env.baseUrl}${String(report.audioUrl)}`, { headers: { authorization: `Bearer ${token}` } });
    expect(wav.status).toBe(200);
    expect(wav.headers.get('content-type')).toBe('audio/wav');
    const bytes = Buffer.from(await wav.arrayBuffer());
    expect(bytes.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(bytes.readUInt32LE(24)).toBe(24000);
    expect(bytes.readUInt32LE(40)).toBe(bytes.length - 44);
    // Both voices are in it: at least the 600 ms of model audio plus the resampled candidate audio.
    expect(bytes.length - 44).toBeGreaterThanOrEqual((replyPcm.length * 2));
    const other = await env.mint('premium', 'someone-else');
    expect((await fetch(`${env.baseUrl}${String(report.audioUrl)}`, { headers: { authorization: `Bearer ${other}` } })).status).toBe(404);
    expect((await fetch(`${env.baseUrl}${String(report.audioUrl)}`)).status).toBe(401);
  });
});

describe('configuration and barge-in', () => {
  it('GEMINI_API_KEY + GOOGLE_GEMINI_BASE_URL alone select audio mode and the endpoint', async () => {
    env = await startT2({ gemini: true, geminiFromConfig: true, env: { T2_LIVE_MODEL: 'gemini-2.5-flash-native-audio-preview-09-2025' } });
    const c = await LiveClient.open(env, { token: await env.mint('premium'), sujet: 'garderie' });
    await c.until(() => c.states().includes('listening'), 'listening');
    const conn = env.fake!.connections[0]!;
    expect(conn.key).toBe('config-key');
    expect(conn.setup!.model).toBe('models/gemini-2.5-flash-native-audio-preview-09-2025');
    c.ws.close();
  });

  it('an interrupted reply is closed, monitored, and the page is told to drop queued audio', async () => {
    env = await startT2({ gemini: true });
    const c = await LiveClient.open(env, { token: await env.mint('premium'), sujet: 'garderie' });
    await c.until(() => c.states().includes('listening'), 'listening');
    const conn = env.fake!.connections[0]!;
    conn.inputTranscription('Bonjour, il reste des places');
    conn.outputTranscription('Il reste deux places dans le groupe des deux ans à partir de');
    await c.until(() => c.states().includes('interlocutor_speaking'), 'speaking');
    conn.interrupted();
    await c.until(() => c.json.some((m) => m.type === 'interrupted'), 'interrupted');
    const finals = c.json.filter((m) => m.type === 'transcript' && m.final).map((m) => m.speaker);
    expect(finals).toEqual(['candidate', 'interlocutor']);
    expect(c.states().at(-1)).toBe('listening');
    c.ws.close();
  });
});

describe('the model audio against the chart events before it', () => {
  it('overtakes the candidate’s transcript, never an interruption', async () => {
    env = await startT2({ gemini: true });
    const c = await LiveClient.open(env, { token: await env.mint('premium'), sujet: 'garderie' });
    await c.until(() => c.states().includes('listening'), 'listening');
    const conn = env.fake!.connections[0]!;
    const pcm = Buffer.alloc(5760, 1); // 120 ms at 24 kHz
    // Both messages in one read of the socket: the reply's first audio reaches the page before
    // the bookkeeping of what the candidate said.
    conn.inputTranscription('Bonjour, il reste des places');
    conn.sendAudio(pcm);
    await c.until(() => c.order.includes('audio') && c.order.includes('transcript'), 'audio and transcript');
    expect(c.order.filter((k) => k === 'audio' || k === 'transcript')).toEqual(['audio', 'transcript']);
    // Two fragments read together reach the chart and the page as one.
    conn.outputTranscription('Il reste deux places ');
    conn.outputTranscription('dans le groupe des deux ans à partir de');
    await c.until(() => c.states().includes('interlocutor_speaking'), 'speaking');
    expect(c.json.filter((m) => m.type === 'transcript' && m.speaker === 'interlocutor')).toEqual([
      { type: 'transcript', speaker: 'interlocutor', text: 'Il reste deux places dans le groupe des deux ans à partir de', final: false },
    ]);
    // The page empties its playback queue on `interrupted`: the next reply's audio must follow it.
    conn.interrupted();
    conn.sendAudio(pcm);
    await c.until(() => c.binary.length === 2 && c.order.includes('interrupted'), 'interrupted and the second audio');
    expect(c.order.indexOf('interrupted')).toBeLessThan(c.order.lastIndexOf('audio'));
    c.ws.close();
  });
});

describe('with TUNING_OFF=chart-events-after-audio,ws-writes-per-tick', () => {
  afterEach(() => setTuningOff([]));

  it('every frame reaches the page in Gemini’s order: events as they arrive, nothing merged, nothing held', async () => {
    setTuningOff(['chart-events-after-audio', 'ws-writes-per-tick']);
    env = await startT2({ gemini: true });
    const c = await LiveClient.open(env, { token: await env.mint('premium'), sujet: 'garderie' });
    await c.until(() => c.states().includes('listening'), 'listening');
    const conn = env.fake!.connections[0]!;
    const pcm = Buffer.alloc(5760, 1);
    conn.inputTranscription('Bonjour, il reste des places');
    conn.sendAudio(pcm);
    await c.until(() => c.order.includes('audio') && c.order.includes('transcript'), 'audio and transcript');
    expect(c.order.filter((k) => k === 'audio' || k === 'transcript')).toEqual(['transcript', 'audio']);
    conn.outputTranscription('Il reste deux places ');
    conn.outputTranscription('dans le groupe des deux ans à partir de');
    await c.until(() => c.json.filter((m) => m.type === 'transcript' && m.speaker === 'interlocutor').length === 2, 'two fragments');
    expect(c.json.filter((m) => m.type === 'transcript' && m.speaker === 'interlocutor').map((m) => m.text)).toEqual(['Il reste deux places ', 'dans le groupe des deux ans à partir de']);
    conn.interrupted();
    conn.sendAudio(pcm);
    await c.until(() => c.binary.length === 2 && c.order.includes('interrupted'), 'interrupted and the second audio');
    expect(c.order.indexOf('interrupted')).toBeLessThan(c.order.lastIndexOf('audio'));
    expect(Buffer.concat(c.binary).equals(Buffer.concat([pcm, pcm]))).toBe(true);
    c.ws.close();
  });
});

describe('goAway and session resumption', () => {
  let fake: GeminiLiveFake | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('opens a new connection with the last handle on goAway and keeps forwarding audio there', async () => {
    fake = await startGeminiLiveFake({ onConnection: (conn) => conn.autoReply({ afterAudioBytes: 3200, candidateText: 'Bonjour', replyText: REPLY, resumption: true }) });
    const ai = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: fake.baseUrl, apiVersion: 'v1beta' } });
    const logic = geminiInterlocutor({ ai, model: 'm', systemPrompt: () => 'p', logger: silentLogger() });
    const events: Array<{ type: string; [k: string]: unknown }> = [];
    const { setup: parent } = await import('xstate');
    const machine = parent({ actors: { live: logic } }).createMachine({
      invoke: { id: 'live', src: 'live', input: { sessionId: 's', sujetId: 'x', mode: 'audio' as const } },
      on: {
        '*': { actions: ({ event }) => events.push(event as { type: string }) },
      },
    });
    const actor = createActor(machine).start();
    await fake.waitForSetups(1);
    await waitFor(actor, () => events.some((e) => e.type === 'interlocutor.ready'));
    const live = actor.getSnapshot().children.live!;
    live.send({ type: 'candidate.audio', pcm: pcm16k(100, 1) });
    await new Promise<void>((resolve) => {
      const check = (): void => (events.some((e) => e.type === 'interlocutor.turnComplete') ? resolve() : void setTimeout(check, 5));
      check();
    });
    fake.connections[0]!.goAway('10s');
    await fake.waitForSetups(2);
    await waitFor(actor, () => events.some((e) => e.type === 'interlocutor.resumed'));
    expect(fake.connections[1]!.setup!.sessionResumption).toEqual({ handle: 'handle-0-1' });
    const after = pcm16k(100, 2);
    live.send({ type: 'candidate.audio', pcm: after });
    await new Promise<void>((resolve) => {
      const check = (): void => (fake!.connections[1]!.audioBytes() >= after.length ? resolve() : void setTimeout(check, 5));
      check();
    });
    expect(Buffer.concat(fake.connections[1]!.audioChunks).equals(after)).toBe(true);
    // The old connection got nothing after the swap, and was closed.
    expect(fake.connections[0]!.audioBytes()).toBe(3200);
    await new Promise((r) => setTimeout(r, 50));
    expect(fake.connections[0]!.closed).toBe(true);
    // An unexpected close with a handle known also resumes (third connection).
    fake.connections[1]!.close(1011, 'overloaded');
    await fake.waitForSetups(3);
    actor.stop();
    expect(events.some((e) => e.type === 'interlocutor.failed')).toBe(false);
  });

  it('the setup config helper carries the handle when resuming', () => {
    expect(liveConfig('p', 'h1').sessionResumption).toEqual({ handle: 'h1' });
    expect(liveConfig('p').sessionResumption).toEqual({});
  });
});
