// mailauth 4.x ships no types; only what the tests call.
declare module 'mailauth/lib/dkim/verify.js' {
  export function dkimVerify(
    input: Buffer | string,
    options: { resolver: (name: string, type: string) => Promise<string[][]> },
  ): Promise<{ results: Array<{ status: { result: string; comment?: string }; signingDomain: string; selector: string }> }>;
}
