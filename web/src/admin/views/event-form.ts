/** Create or edit an event. Field errors (ours or the API's `"<field>: <message>"`) appear under their field. */
import { h, replaceChildren } from '../../shared/dom';
import { asApiError } from '../../shared/http';
import { toDateTimeLocal } from '../../shared/time';
import { adminApi, type AdminEvent } from '../api';
import { adminErrorMessage, EVENT_FIELDS, WATERMARK_COST, eventInputFromForm, formatCount, formFieldError, parseFieldError, priceInput, type EventField, type EventFormValues } from '../labels';
import { hrefOf } from '../router';
import { alertError, notify } from '../ui';
import { geoPicker } from './geo-picker';

interface FieldSpec {
  name: EventField;
  label: string;
  hint?: string;
  control: HTMLInputElement | HTMLTextAreaElement;
  /** The heading of the form's section this field opens. */
  opens?: { title: string; text: string };
  /** Drawn around the control (the country picker's radios and lists). */
  before?: HTMLElement;
  after?: HTMLElement;
  /** What the form sends for the field, when it is not the control's value. */
  read?: () => string;
}

/** What the form reads of a control: a checkbox's state, any other's value. */
const valueOf = (control: FieldSpec['control']) => (control instanceof HTMLInputElement && control.type === 'checkbox' ? String(control.checked) : control.value);

export async function renderEventForm(
  main: HTMLElement,
  eventId: string | null,
  current: () => boolean,
  navigate: (href: string) => void,
): Promise<void> {
  const heading = eventId ? 'Edit event' : 'New event';
  replaceChildren(main, h('h1', { tabindex: -1 }, heading), h('p', { className: 'muted' }, 'Loading…'));
  const existing = eventId ? await adminApi.getEvent(eventId) : null;
  if (!current()) return;

  const fields = buildFields(existing);
  const errorOf = (name: EventField) => main.querySelector<HTMLElement>(`#${name}-error`)!;
  const submit = h('button', { type: 'submit', className: 'primary' }, eventId ? 'Save changes' : 'Create event');
  const cancelHref = eventId ? hrefOf({ view: 'event', id: eventId }) : hrefOf({ view: 'dashboard' });
  const form = h(
    'form',
    { className: 'card event-form', novalidate: true },
    fields.map((field) => [
      field.opens && [h('h2', { className: 'form-section' }, field.opens.title), h('p', { className: 'hint' }, field.opens.text)],
      h(
        'div',
        { className: `field field-${field.name}` },
        field.before,
        h('label', { for: field.name }, field.label),
        field.control,
        field.after,
        field.hint && h('p', { id: `${field.name}-hint`, className: 'hint' }, field.hint),
        h('p', { id: `${field.name}-error`, className: 'field-error' }),
      ),
    ]),
    h('div', { className: 'actions' }, submit, h('a', { className: 'button', href: cancelHref }, 'Cancel')),
  );

  const showErrors = (errors: Partial<Record<EventField, string>>) => {
    let first: HTMLElement | undefined;
    for (const field of fields) {
      const message = errors[field.name] ?? '';
      errorOf(field.name).textContent = message;
      if (message) {
        field.control.setAttribute('aria-invalid', 'true');
        first ??= field.control;
      } else field.control.removeAttribute('aria-invalid');
    }
    first?.focus();
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const values = Object.fromEntries(fields.map((field) => [field.name, field.read ? field.read() : valueOf(field.control)])) as EventFormValues;
    const checked = eventInputFromForm(values);
    if (checked.errors) return showErrors(checked.errors);
    showErrors({});
    submit.disabled = true;
    const saving = eventId ? adminApi.updateEvent(eventId, checked.input) : adminApi.createEvent(checked.input);
    saving
      .then((saved: AdminEvent) => {
        notify(eventId ? 'Changes saved.' : `Event “${saved.title}” created.`);
        navigate(hrefOf({ view: 'event', id: eventId ?? saved.id }));
      })
      .catch((thrown: unknown) => {
        const error = asApiError(thrown);
        if (error.status === 400) {
          const { field, message } = parseFieldError(formFieldError(error.message), EVENT_FIELDS);
          const spec = fields.find((candidate) => candidate.name === field);
          // The API says `title: is required`; read it as `Title is required.`
          if (spec) return showErrors({ [spec.name]: /^[a-z]/.test(message) ? `${spec.label} ${message}` : message });
        }
        if (error.status !== 401) alertError(adminErrorMessage(error.status, error.message));
      })
      .finally(() => (submit.disabled = false));
  });

  replaceChildren(
    main,
    h('p', null, h('a', { href: cancelHref }, eventId ? '← Back to the event' : '← All events')),
    h('h1', { tabindex: -1 }, existing ? `Edit “${existing.title}”` : heading),
    form,
  );
}

function buildFields(event: AdminEvent | null): FieldSpec[] {
  const start = event ? new Date(event.startsAt) : nextHour();
  const end = event ? new Date(event.endsAt) : new Date(start.getTime() + 2 * 3_600_000);
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const sale = event?.sale ?? null;
  const input = (name: EventField, attrs: Record<string, unknown>, hint?: string) =>
    h('input', { id: name, name, 'aria-describedby': `${hint ? `${name}-hint ` : ''}${name}-error`, ...attrs });
  return [
    { name: 'title', label: 'Title', control: input('title', { required: true, maxlength: 200, value: event?.title ?? '' }) },
    {
      name: 'description',
      label: 'Description',
      hint: 'Shown to viewers under the player. Optional.',
      control: h('textarea', {
        id: 'description',
        name: 'description',
        rows: 4,
        'aria-describedby': 'description-hint description-error',
        value: event?.description ?? '',
      }),
    },
    {
      name: 'startsAt',
      label: 'Starts',
      hint: `Your time zone (${zone}).`,
      control: input('startsAt', { type: 'datetime-local', required: true, value: toDateTimeLocal(start.toISOString()) }, 'x'),
    },
    {
      name: 'endsAt',
      label: 'Ends',
      hint: `Your time zone (${zone}).`,
      control: input('endsAt', { type: 'datetime-local', required: true, value: toDateTimeLocal(end.toISOString()) }, 'x'),
    },
    {
      name: 'accessWindowHours',
      label: 'Access window (hours)',
      hint: 'How long codes keep working after the event ends (counted from the end time), 0 to 8760 hours.',
      control: input(
        'accessWindowHours',
        { type: 'number', min: 0, max: 8760, step: 1, inputmode: 'numeric', value: String(event?.accessWindowHours ?? 48) },
        'x',
      ),
    },
    {
      name: 'devicesPerCode',
      label: 'Devices per code',
      hint: 'How many devices may watch on one code at once, 1 to 5. A change applies to new devices: lowering it stops nobody who is watching.',
      control: input('devicesPerCode', { type: 'number', min: 1, max: 5, step: 1, inputmode: 'numeric', value: String(event?.devicesPerCode ?? 1) }, 'x'),
    },
    {
      name: 'watermark',
      label: 'Forensic watermark',
      hint: WATERMARK_COST,
      control: input('watermark', { type: 'checkbox', checked: event?.watermark ?? false }, 'x'),
    },
    {
      name: 'posterUrl',
      label: 'Poster image URL',
      hint: 'Shown before the stream starts. Optional.',
      control: input('posterUrl', { type: 'url', value: event?.posterUrl ?? '', placeholder: 'https://' }, 'x'),
    },
    {
      name: 'saleOpen',
      label: 'On sale now',
      hint: 'Viewers can buy tickets on the event page. Untick to pause the sale.',
      control: input('saleOpen', { type: 'checkbox', checked: sale?.open ?? false }, 'x'),
      opens: {
        title: 'On sale',
        text: 'Sell tickets on the viewer page with Stripe Checkout: each buyer gets their codes by email. Leave the price empty to sell elsewhere.',
      },
    },
    {
      name: 'salePrice',
      label: 'Price per ticket',
      hint: 'In the currency below, such as 15.00.',
      control: input('salePrice', { inputmode: 'decimal', value: sale ? priceInput(sale.priceMinor, sale.currency) : '' }, 'x'),
    },
    {
      name: 'saleCurrency',
      label: 'Currency',
      hint: 'A three-letter code: EUR, USD, GBP…',
      control: input('saleCurrency', { maxlength: 3, autocapitalize: 'characters', value: (sale?.currency ?? 'eur').toUpperCase() }, 'x'),
    },
    {
      name: 'saleCapacity',
      label: 'Tickets to sell',
      hint: `How many in all; empty for no limit.${event?.sale ? ` Taken so far (sold or in a checkout): ${formatCount(event.ticketsTaken)}.` : ''}`,
      control: input('saleCapacity', { type: 'number', min: 1, step: 1, inputmode: 'numeric', value: sale?.capacity === null || !sale ? '' : String(sale.capacity) }, 'x'),
    },
    {
      name: 'saleMaxPerOrder',
      label: 'Tickets per order',
      hint: 'The most one buyer may take at once, 1 to 20.',
      control: input('saleMaxPerOrder', { type: 'number', min: 1, max: 20, step: 1, inputmode: 'numeric', value: String(sale?.maxPerOrder ?? 10) }, 'x'),
    },
    geoField(event),
  ];
}

/** The country rule: a searchable picker whose search box is the field's control. */
function geoField(event: AdminEvent | null): FieldSpec {
  const picker = geoPicker(event?.geo ?? null, 'geo-hint geo-error');
  return {
    name: 'geo',
    label: 'Search countries',
    hint: 'Search by name or code and pick from the list. Viewers elsewhere are refused at validation and at every video request; a viewer whose country is unknown is in no list.',
    control: picker.search,
    before: picker.modes,
    after: picker.lists,
    read: () => JSON.stringify(picker.rule()),
    opens: { title: 'Countries', text: 'Where the event may be watched, by the viewer\'s country as CloudFront sees it. A change reaches viewers within seconds.' },
  };
}

function nextHour(): Date {
  const date = new Date();
  date.setMinutes(0, 0, 0);
  date.setHours(date.getHours() + 1);
  return date;
}
