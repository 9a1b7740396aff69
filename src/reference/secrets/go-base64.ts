/**
 * Go's base64.StdEncoding.DecodeString, as Vault's handlers decode: the standard alphabet with its
 * padding, line breaks skipped; anything else is an error (undefined here). Node's decoder takes
 * any text and drops what it cannot read, which would accept what Vault refuses.
 */
const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function decodeStdBase64(text: string): Buffer | undefined {
  const compact = text.replace(/[\r\n]/g, '');
  return STD_BASE64.test(compact) ? Buffer.from(compact, 'base64') : undefined;
}
