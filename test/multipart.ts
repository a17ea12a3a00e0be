/** One part of a multipart/form-data body: a plain field (string, no filename) or a file. */
export interface Part {
  name: string;
  data: Buffer | string;
  filename?: string;
  type?: string;
}

/** A multipart/form-data body exactly as a browser's FormData serialises it. */
export async function formBody(parts: Part[]): Promise<{ payload: Buffer; contentType: string }> {
  const form = new FormData();
  for (const p of parts) {
    if (typeof p.data === 'string' && p.filename === undefined) form.append(p.name, p.data);
    else form.append(p.name, new Blob([typeof p.data === 'string' ? p.data : new Uint8Array(p.data)], { type: p.type ?? 'application/octet-stream' }), p.filename ?? 'upload.bin');
  }
  const req = new Request('http://local/', { method: 'POST', body: form });
  return { payload: Buffer.from(await req.arrayBuffer()), contentType: req.headers.get('content-type')! };
}
