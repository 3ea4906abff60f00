import { waitForOutcome } from './order-outcome';

/** An event stream answer holding these statuses, in this order, then kept open or ended. */
function streamOf(statuses: string[], end: boolean): Response {
  const text = `retry: 2000\n\n${statuses
    .map(
      (status, i) => `id: e${i}\nevent: status\ndata: {"reference":"R-1","status":"${status}"}\n\n`,
    )
    .join('')}`;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      if (end) controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

const wait = (answers: Response[], timeoutMs = 2_000) => {
  let call = 0;
  return waitForOutcome({
    baseUrl: 'http://api.test',
    reference: 'R-1',
    statusToken: 'pst_x',
    timeoutMs,
    pollIntervalMs: 50,
    fetch: async () => answers[Math.min(call++, answers.length - 1)],
  });
};

describe('waitForOutcome reading the order history each connection replays', () => {
  it('answers the current status, not an earlier one: a paid order later reversed is not paid', async () => {
    await expect(wait([streamOf(['pending', 'completed', 'reversed'], true)])).resolves.toEqual({
      outcome: 'failed',
      reference: 'R-1',
      status: 'reversed',
      retryable: false,
    });
  });

  it('does not stop at a failed first attempt when a second one is under way', async () => {
    const answer = wait([streamOf(['pending', 'failed', 'pending'], false)], 600);
    await expect(answer).resolves.toEqual({
      outcome: 'pending',
      reference: 'R-1',
      status: 'pending',
    });
  });

  it('answers paid, and a failure as retryable once nothing follows it', async () => {
    await expect(wait([streamOf(['pending', 'completed'], true)])).resolves.toMatchObject({
      outcome: 'paid',
    });
    await expect(wait([streamOf(['pending', 'failed'], false)])).resolves.toEqual({
      outcome: 'failed',
      reference: 'R-1',
      status: 'failed',
      retryable: true,
    });
  });

  it('polls by reconnecting when a connection ends without an outcome', async () => {
    await expect(
      wait([
        streamOf(['pending'], true),
        streamOf(['pending'], true),
        streamOf(['pending', 'completed'], true),
      ]),
    ).resolves.toMatchObject({ outcome: 'paid' });
  });
});
