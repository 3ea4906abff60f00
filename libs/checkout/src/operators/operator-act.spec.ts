import { holdRequestContext, requestContextHolds } from '@app/common';
import { currentAct, OperatorAct, runAsAct } from './operator-act';

const act: OperatorAct = {
  operator: {
    kind: 'person',
    id: 'sub-1',
    email: 'ops@example.test',
    name: 'ops@example.test',
    roles: ['admin'],
    permissions: new Set(),
  },
  origin: { ip: '127.0.0.1' },
  recorded: false,
};

describe('runAsAct', () => {
  it('keeps the act readable to the end of its work, even once the request that began it is closed', async () => {
    const request = holdRequestContext();
    let closeRequest: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (closeRequest = resolve));
    const seen = runAsAct(act, async () => {
      const before = currentAct();
      closeRequest();
      await closed;
      // The caller went away (its answer closed): the change still writes its audit row.
      request();
      await new Promise((resolve) => setImmediate(resolve));
      return [before, currentAct()];
    });
    expect(await seen).toEqual([act, act]);
    expect(requestContextHolds()).toBe(0);
    expect(currentAct()).toBeUndefined();
  });
});
