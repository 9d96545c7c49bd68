// mailauth 4.x ships no types: only what inbound/auth.ts calls.
declare module 'mailauth' {
  interface Status {
    result: string;
    comment?: string;
  }
  export interface AuthenticateResult {
    dkim: { results?: { status: Status; signingDomain?: string }[] };
    spf: { status: Status; domain?: string } | false;
    dmarc: { status: Status; domain?: string; policy?: string } | false;
  }
  export function authenticate(
    input: Buffer,
    options: {
      ip?: string;
      helo?: string;
      sender?: string;
      mta?: string;
      resolver?: (name: string, type: string) => Promise<unknown>;
      disableArc?: boolean;
      disableBimi?: boolean;
    },
  ): Promise<AuthenticateResult>;
}
