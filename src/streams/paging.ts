/** The offset of the next page, or null when this one was short (the list is complete). */
export function nextOffset(offset: number, received: number, pageSize: number): number | null {
  return received < pageSize ? null : offset + pageSize;
}
