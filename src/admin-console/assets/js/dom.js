// Small DOM helpers. Every value from the API is written as text (textContent or an attribute),
// never parsed as markup.
import { t } from './i18n.js';

/** An element with attributes (`on*` functions become listeners) and children (strings are text). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

let ids = 0;
/** A labelled control: the label wraps its input, so every input has an accessible name. */
export function field(label, control) {
  if (!control.id) control.id = `f${++ids}`;
  return h('label', { for: control.id }, label, control);
}

export function input(name, attrs = {}) {
  return h('input', { name, ...attrs });
}

export function select(name, options, value = '') {
  return h(
    'select',
    { name },
    options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)),
  );
}

/**
 * A table with a header row; `columns` are [heading, cell(row)] pairs. Its box scrolls sideways
 * on its own when the table cannot fit (a phone), so the page itself never does.
 */
export function table(caption, columns, rows) {
  return scrollBox(
    caption,
    h(
      'table',
      {},
      h('caption', { class: 'muted' }, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          columns.map(([heading]) => h('th', { scope: 'col' }, heading)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.length === 0
          ? h('tr', {}, h('td', { colspan: columns.length }, t('common.empty')))
          : rows.map((row) =>
              h(
                'tr',
                {},
                columns.map(([, cell]) => h('td', {}, cell(row))),
              ),
            ),
      ),
    ),
  );
}

/**
 * The sideways-scrolling box of a table: a named region (its caption), which keyboard users can
 * focus to scroll whenever the table is wider than the box (a phone). A box that fits is no tab
 * stop, so wide screens keep the tab order they had.
 */
function scrollBox(caption, content) {
  const name = typeof caption === 'string' ? caption : (caption?.textContent ?? '');
  // Named apart from the table's own section (two landmarks of one name confuse screen readers).
  const label = t('common.table_scrolls', { caption: name });
  const box = h('div', { class: 'table-wrap', role: 'region', 'aria-label': label, tabindex: 0 }, content);
  if (typeof ResizeObserver === 'function') {
    const fit = () => {
      if (box.scrollWidth > box.clientWidth) {
        box.setAttribute('tabindex', '0');
        box.setAttribute('role', 'region');
        box.setAttribute('aria-label', label);
      } else {
        box.removeAttribute('tabindex');
        box.removeAttribute('role');
        box.removeAttribute('aria-label');
      }
    };
    new ResizeObserver(fit).observe(box);
  }
  return box;
}

export function time(ms) {
  if (ms === null || ms === undefined) return '—';
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
}

let statusTimer;

/** Says something in the live region (screen readers announce it) and on screen. */
export function announce(message, isError = false) {
  const region = document.getElementById('status');
  region.replaceChildren(h('p', { class: isError ? 'error' : '' }, message));
  clearTimeout(statusTimer);
  statusTimer = setTimeout(() => region.replaceChildren(), isError ? 8000 : 4000);
}

/** Empties the live region: a message about one page must not stand above the next. */
export function clearStatus() {
  clearTimeout(statusTimer);
  document.getElementById('status').replaceChildren();
}

/** The values of a form's named controls, without empty ones. */
export function formValues(form) {
  const values = {};
  for (const [name, value] of new FormData(form).entries()) if (value !== '') values[name] = String(value);
  return values;
}

let dialogs = 0;
/**
 * Asks in the page before a destructive or service-wide action (never the browser's confirm):
 * a modal dialog naming what will happen, Cancel focused first, Escape cancels. Resolves true
 * only when the administrator chose the action.
 */
export function confirmAction({ title, body, action, cancel = t('common.cancel') }) {
  return new Promise((resolve) => {
    const id = `dialog${++dialogs}`;
    const yes = h('button', { type: 'button', class: 'danger' }, action);
    const no = h('button', { type: 'button', class: 'secondary' }, cancel);
    const dialog = h(
      'dialog',
      { class: 'confirm', 'aria-labelledby': `${id}-title`, 'aria-describedby': `${id}-body` },
      h('h2', { id: `${id}-title` }, title),
      h('p', { id: `${id}-body` }, body),
      h('div', { class: 'actions' }, no, yes),
    );
    const done = (answer) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    yes.addEventListener('click', () => done(true));
    no.addEventListener('click', () => done(false));
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      done(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    no.focus();
  });
}
