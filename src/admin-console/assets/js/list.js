// A keyset-paged list: the first page, then "Load more" with next_cursor passed back unchanged.
import { announce, h, table } from './dom.js';

export async function pagedTable(container, caption, columns, load) {
  const rows = [];
  const holder = h('div');
  container.append(holder);
  let cursor;
  const more = async () => {
    try {
      const page = await load(cursor);
      rows.push(...page.items);
      cursor = page.next_cursor ?? undefined;
      holder.replaceChildren(
        table(caption, columns, rows),
        page.has_more
          ? h('button', { type: 'button', class: 'secondary', onclick: () => void more() }, 'Load more')
          : '',
      );
    } catch (error) {
      announce(error.message, true);
    }
  };
  await more();
}
