import { describeInBrowser } from '../support/browser';
import { consoleInChromium } from './console-support';
import { auditAndAccessPages } from './pages/audit-and-access';
import { operationsPages } from './pages/operations';
import { ordersPages } from './pages/orders';
import { overviewPage } from './pages/overview';
import { pageStates } from './pages/states';
import { webhooksPage } from './pages/webhooks';

/**
 * The console's pages, signed in, in one headless Chromium against the api and the sandbox
 * gateway (./console-support.ts): one start and one sign-in for them all. Each page's tests are in
 * ./pages/. The states, which stand in for the api's answers, come last.
 */
describeInBrowser('the console in Chromium', () => {
  const the = consoleInChromium({ signedIn: true });
  ordersPages(the);
  overviewPage(the);
  operationsPages(the);
  webhooksPage(the);
  auditAndAccessPages(the);
  pageStates(the);
});
