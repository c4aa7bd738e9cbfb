/** A LIKE pattern matching values that start with `text` ('!' escapes: a backslash means different things in SQLite and MySQL). */
export function likePrefix(text: string): string {
  return `${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}
