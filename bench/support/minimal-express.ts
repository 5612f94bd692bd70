/**
 * The minimal express app, baseline of bench/serve-start.ts: started exactly like
 * `palabre serve` (same Node, same loader), it listens on PORT and answers /healthz.
 */
import express from 'express';

const app = express();
app.get('/healthz', (_req, res) => {
  res.json({ status: 'ok', ready: true });
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
