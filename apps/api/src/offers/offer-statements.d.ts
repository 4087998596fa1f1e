/** The statements of offer-statements.js (see there). */
export const HISTORY_DAYS: number;
export const CARDHOLDER_SQL: string;
export const PERSONALIZED_CARDHOLDER_SQL: string;
export const CATALOGUE_SQL: string;
export const POPULARITY_SQL: string;
export const ENROLLMENT_FACTS_SQL: string;
