/** A request the scheduler's client endpoints cannot serve: the status and the plain-text message. */
export class ClientError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
