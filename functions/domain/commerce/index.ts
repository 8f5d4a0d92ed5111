/** The commerce area's public entry: the other areas and the functions import it from here. */
export * from './buyer-resend';
export * from './calendar-file';
export * from './checkout-sweep';
export * from './checkout';
export * from './order-input';
export * from './order-store';
export * from './orders';
export * from './qr-png';
export * from './stripe-orders';
export * from './ticket-email';
export * from './webhook-signature';
export * from './checkout-sessions';
export * from './ticket-mail';
export * from './sales-count';
export * from './order-refund';
export * from './order-cancellation';
export * from './cancellation-email';
