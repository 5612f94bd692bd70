// The minimal hand-written Skull responder, baseline of bench/skull-ratio.ts: what any
// correct MQTT request → reply service must do. Subscribes to <prefix>/ai/request (QoS 1), checks
// the JSON has a text, publishes <prefix>/ai/response then <prefix>/ai/usage (QoS 1). Plain
// JavaScript, no loader: `node bench/support/skull-responder.mjs` with MQTT_URL and PREFIX set.
import mqtt from 'mqtt';

const prefix = process.env.PREFIX ? `${process.env.PREFIX}/` : '';
const client = await mqtt.connectAsync(process.env.MQTT_URL, { protocolVersion: Number(process.env.MQTT_PROTOCOL ?? 4), reconnectPeriod: 1000 });
client.on('message', (topic, payload) => {
  let text;
  try {
    text = JSON.parse(String(payload)).text;
  } catch {
    return;
  }
  if (typeof text !== 'string' || text.trim() === '') return;
  const now = Date.now();
  const reply = 'Bonjour ! Je suis Skull.';
  client.publish(`${prefix}ai/response`, JSON.stringify({ ts_ms: now, text: reply }), { qos: 1 });
  client.publish(`${prefix}ai/usage`, JSON.stringify({ ts_ms: now, latency_ms: 0, input_tokens: Math.ceil(text.length / 4), output_tokens: Math.ceil(reply.length / 4), model: 'offline' }), { qos: 1 });
});
await client.subscribeAsync(`${prefix}ai/request`, { qos: 1 });
process.send?.('ready');
process.on('SIGTERM', () => void client.endAsync().then(() => process.exit(0)));
