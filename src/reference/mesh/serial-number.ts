/**
 * Certificate serial numbers as Consul writes them: connect.EncodeSerialNumber is
 * connect.HexString(serial.Bytes()), the big-endian bytes of the number, each as two lowercase hex
 * digits, joined by colons. A hex form with an odd number of digits gets its leading zero
 * (0x10000 is "01:00:00"); cutting it into pairs without one would drop the last digit.
 */
export function colonHexSerial(serial: bigint): string {
  return evenHex(serial).match(/../g)!.join(':');
}

/** The serial as the even-length hex string @peculiar/x509 takes for a certificate. */
export function certificateSerialHex(serial: bigint): string {
  return evenHex(serial);
}

function evenHex(serial: bigint): string {
  if (serial <= 0n) throw new RangeError(`a certificate serial must be positive, got ${serial}`);
  const hex = serial.toString(16);
  return hex.length % 2 ? `0${hex}` : hex;
}
