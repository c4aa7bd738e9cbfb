// The Users and Groups lists: one page at a time ("Next page" follows next_cursor unchanged,
// "First page" starts again), the filters in the form, and a CSV link with the same filters.
import { announce, h, table } from '../dom.js';
import { t } from '../i18n.js';

/** The query string of `values` without empty ones (the export link carries the list's filters). */
export function queryOf(values) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== '') params.set(name, value);
  return params.toString();
}

/**
 * Shows page after page of `load(cursor)` in `container`. `partial` pages (the online filter
 * stopped after examining its share) say so, so that a short page is not taken for the end.
 */
export async function pagedList(container, { caption, columns, load, area }) {
  const holder = h('div', { 'aria-live': 'polite' });
  container.replaceChildren(holder);
  let number = 1;
  const show = async (cursor) => {
    try {
      const page = await load(cursor);
      const next = page.next_cursor;
      holder.replaceChildren(
        table(t(`${area}.list.caption`, { caption, page: number }), columns, page.items),
        page.partial ? h('p', { class: 'muted' }, t(`${area}.list.partial`)) : '',
        h(
          'div',
          { class: 'inline pager' },
          number > 1
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'secondary',
                  onclick: () => {
                    number = 1;
                    void show(undefined);
                  },
                },
                t(`${area}.list.first`),
              )
            : '',
          next
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'secondary',
                  onclick: () => {
                    number += 1;
                    void show(next);
                  },
                },
                t(`${area}.list.next`),
              )
            : '',
        ),
      );
    } catch (error) {
      announce(error.message, true);
    }
  };
  await show(undefined);
}
