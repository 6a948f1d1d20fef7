/**
 * The CORS rule the extension needs, from its one definition
 * (`src/rules/cors.json`), as S3's console and API take it. Here, beside the
 * data, so that the error messages (which show it as a fix) and the S3 layer
 * (which checks a bucket against it) both import it without importing each
 * other.
 */
import corsDefinition from './cors.json';

export const REQUIRED_CORS_RULE = {
  AllowedMethods: [...corsDefinition.AllowedMethods],
  AllowedHeaders: [...corsDefinition.AllowedHeaders],
  ExposeHeaders: [...corsDefinition.ExposeHeaders],
  MaxAgeSeconds: corsDefinition.MaxAgeSeconds
};

/**
 * One CORS rule as S3's console and API spell it (a CORS configuration is a
 * list of these).
 */
export interface IS3CorsRule {
  ID?: string;
  AllowedOrigins: string[];
  AllowedMethods: string[];
  AllowedHeaders: string[];
  ExposeHeaders: string[];
  MaxAgeSeconds?: number;
}

/**
 * The one CORS rule to add to a bucket for the page at `origin`.
 */
export function requiredCorsRule(origin: string): IS3CorsRule {
  return { AllowedOrigins: [origin], ...REQUIRED_CORS_RULE };
}
