// @ts-check
import { reject } from './errors.js';

/**
 * Cursor pagination over an ordered list (core/pagination-request.json → pagination-response.json). The cursor is
 * an opaque offset; one the seller did not issue is INVALID_REQUEST at `pagination.cursor`.
 * @template T
 * @param {readonly T[]} items in a stable order
 * @param {{ max_results?: number, cursor?: string } | undefined} request
 * @param {number} [defaultPage]
 * @returns {{ page: T[], pagination: { has_more: boolean, cursor?: string, total_count: number } }}
 */
export function paginate(items, request, defaultPage = 50) {
  const size = Math.max(1, Math.min(request?.max_results ?? defaultPage, 100));
  let offset = 0;
  if (request?.cursor !== undefined) {
    const m = /^o(\d{1,9})$/.exec(Buffer.from(request.cursor, 'base64url').toString('latin1'));
    if (m === null || Number(m[1]) > items.length) reject('INVALID_REQUEST', 'pagination.cursor is not a cursor this seller issued', { field: 'pagination.cursor' });
    offset = Number(m[1]);
  }
  const page = items.slice(offset, offset + size);
  const next = offset + page.length;
  const has_more = next < items.length;
  return { page, pagination: { has_more, ...(has_more ? { cursor: Buffer.from(`o${next}`, 'latin1').toString('base64url') } : {}), total_count: items.length } };
}
