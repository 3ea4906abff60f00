import { Controller, Get, Module } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { connect, Socket } from 'node:net';
import { createFastifyApp } from './create-fastify-app';

/** Held open until the test lets it answer: a request in flight while the server closes. */
let releaseSlow: () => void = () => undefined;
let slowStarted: () => void = () => undefined;

@Controller()
class PacedController {
  @Get('slow')
  async slow(): Promise<{ answered: string }> {
    const released = new Promise<void>((resolve) => (releaseSlow = resolve));
    slowStarted();
    await released;
    return { answered: 'slow' };
  }

  @Get('fast')
  fast(): { answered: string } {
    return { answered: 'fast' };
  }
}

@Module({ controllers: [PacedController] })
class PacedModule {}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The answers read off one connection, in order (Content-Length bodies only). */
function answersOf(text: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
      }),
    );
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = end + 4;
    answers.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: rest.slice(bodyStart, bodyStart + length),
    });
    rest = rest.slice(bodyStart + length);
  }
  return answers;
}

describe('createFastifyApp: a stopping server', () => {
  let app: NestFastifyApplication;
  let socket: Socket | undefined;

  afterEach(() => socket?.destroy());

  it('answers a request arriving on a kept-alive connection 503 in the error shape, with Retry-After, and finishes the one in flight', async () => {
    app = await createFastifyApp(PacedModule, { bufferLogs: false });
    app.useLogger(false);
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    const received: Buffer[] = [];
    socket = connect(port, '127.0.0.1');
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const ended = new Promise<void>((resolve) => socket!.on('close', () => resolve()));
    const inFlight = new Promise<void>((resolve) => (slowStarted = resolve));
    socket.write('GET /slow HTTP/1.1\r\nHost: checkout.test\r\n\r\n');
    await inFlight;

    const closing = app.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Pipelined behind the one in flight, on the same connection, after the close began.
    socket.write('GET /fast HTTP/1.1\r\nHost: checkout.test\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    releaseSlow();
    await closing;
    await ended;

    const [slow, late] = answersOf(Buffer.concat(received).toString('latin1'));
    expect(slow.status).toBe(200);
    expect(JSON.parse(slow.body)).toEqual({ answered: 'slow' });
    expect(late.status).toBe(503);
    expect(late.headers['retry-after']).toBe('1');
    expect(late.headers.connection).toBe('close');
    expect(late.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(late.body)).toEqual({
      error: {
        code: 'service_stopping',
        message: 'this instance is stopping: send the request again (another instance takes it)',
      },
    });
  });
});
