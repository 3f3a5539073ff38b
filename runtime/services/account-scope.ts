/**
 * An AdCP account reference (core/account-ref.json: `account_id`, or the natural key of brand and operator) as a
 * short stable key: what scopes insert budgets and tasks to one account.
 */
export function accountScope(account: unknown): string {
  if (account === undefined || account === null || typeof account !== 'object') return '';
  const a = account as Record<string, unknown>;
  if (typeof a.account_id === 'string') return `id:${a.account_id}`;
  const brand = a.brand as Record<string, unknown> | undefined;
  return `nk:${String(brand?.domain ?? '')}\u001f${String(brand?.brand_id ?? '')}\u001f${String(a.operator ?? '')}`;
}
