export const DEFAULT_BILLING_PLANS: readonly string[] = ['starter', 'team', 'business', 'enterprise'];

declare module '../../core/deps.js' {
  interface FamilyConfig {
    /** The plan names billing.update accepts (BILLING_PLANS); the first is a new subscription's default. */
    billingPlans: readonly string[];
  }
}
