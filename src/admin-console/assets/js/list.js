// A keyset-paged list: the first page, then "Load more" with next_cursor passed back unchanged.
import { announce, h, table } from './dom.js';
import { t } from './i18n.js';

/**
 * Shows the list in `container`. The result's `update(match, change)` rewrites the rows already
 * shown (after an action on one of them), so the list never contradicts the detail below it.
 */
export async function pagedTable(container, caption, columns, load) {
  const rows = [];
  const holder = h('div');
  container.append(holder);
  let cursor;
  let hasMore = false;
  const render = () =>
    holder.replaceChildren(
      table(caption, columns, rows),
      hasMore
        ? h('button', { type: 'button', class: 'secondary', onclick: () => void more() }, t('common.load_more'))
        : '',
    );
  const more = async () => {
    try {
      const page = await load(cursor);
      rows.push(...page.items);
      cursor = page.next_cursor ?? undefined;
      // Some lists say has_more; the others have more exactly when they give a cursor.
      hasMore = page.has_more ?? page.next_cursor != null;
      render();
    } catch (error) {
      announce(error.message, true);
    }
  };
  await more();
  return {
    /** The rows shown so far (every page loaded). */
    rows: () => [...rows],
    update(match, change) {
      let changed = false;
      rows.forEach((row, i) => {
        if (!match(row)) return;
        rows[i] = { ...row, ...change };
        changed = true;
      });
      if (changed) render();
    },
  };
}
