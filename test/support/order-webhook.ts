import { signPayload } from '../../functions/domain/webhook-signature';
import { call, type HttpResult } from './http';

export interface OrderDelivery {
  type: string;
  orderId: string;
  eventId: string;
  email: string;
  quantity: number;
  amountMinor?: number;
  currency?: string;
}

/** A shop's delivery to `POST /api/webhooks/orders`, signed with `secret` at `at` (now by default), as README shows with openssl. */
export function deliverOrder(apiUrl: string, secret: string, order: OrderDelivery, options: { at?: Date; signature?: string } = {}): Promise<HttpResult> {
  const body = JSON.stringify(order);
  const signature = options.signature ?? signPayload(secret, body, options.at ?? new Date());
  return call('POST', `${apiUrl}/api/webhooks/orders`, { body, headers: { 'content-type': 'application/json', 'stagedoor-signature': signature } });
}
