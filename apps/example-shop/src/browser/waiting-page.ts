/**
 * The waiting page's script, bundled for the browser with the shop client: follows the order live
 * with its status_token (read-only, this order only) and shows the outcome.
 */
import { waitForOutcome } from '../../../../libs/shop-client/src/order-outcome';

async function follow(): Promise<void> {
  const holder = document.getElementById('order');
  const state = document.getElementById('state');
  if (!holder || !state) return;
  const { reference, statusToken, apiUrl, waitMs } = holder.dataset;
  try {
    const result = await waitForOutcome({
      baseUrl: apiUrl ?? '',
      reference: reference ?? '',
      statusToken: statusToken ?? '',
      timeoutMs: Number(waitMs) || 180_000,
    });
    document.body.dataset.outcome = result.outcome;
    if (result.outcome === 'paid') {
      state.textContent = 'Paid. Thank you!';
      document.getElementById('receipt-link')?.removeAttribute('hidden');
    } else if (result.outcome === 'failed') {
      state.textContent = result.retryable
        ? 'The payment was declined or not completed.'
        : `This order is ${result.status} and cannot be paid.`;
      if (result.retryable) document.getElementById('try-again')?.removeAttribute('hidden');
    } else {
      state.textContent =
        'Still waiting for the payment. If you paid, we will email you when it is confirmed.';
      document.getElementById('try-again')?.removeAttribute('hidden');
    }
  } catch (error) {
    document.body.dataset.outcome = 'error';
    state.textContent = `Could not follow the payment: ${error instanceof Error ? error.message : String(error)}`;
  }
}

void follow();
