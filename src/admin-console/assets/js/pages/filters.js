// Filter forms shared by the list pages: dates are entered as days and sent as Unix ms.
import { field, formValues, h, input } from '../dom.js';
import { t } from '../i18n.js';

export function dateFields() {
  return [
    field(t('common.filter.from'), input('from', { type: 'date' })),
    field(t('common.filter.to'), input('to', { type: 'date' })),
  ];
}

/** The form's values with from/to as Unix ms ("to" is exclusive: the day after). */
export function filterValues(form) {
  const values = formValues(form);
  if (values.from) values.from = String(Date.parse(`${values.from}T00:00:00Z`));
  if (values.to) values.to = String(Date.parse(`${values.to}T00:00:00Z`) + 86_400_000);
  return values;
}

/** A filter form that calls `apply` with its values on submit (and once at the start). */
export function filterForm(label, controls, apply) {
  const form = h(
    'form',
    { class: 'filters', 'aria-label': label },
    controls,
    h('button', { type: 'submit' }, t('common.apply')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void apply(filterValues(form));
  });
  return form;
}
