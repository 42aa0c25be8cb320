// Structured JSON logs (Powertools Logger): one JSON object per line with level, message,
// service, timestamp and, inside Lambda, the function name, request id and cold start. The
// level comes from POWERTOOLS_LOG_LEVEL (or Lambda's advanced logging controls); outside Lambda
// it defaults to WARN so `npm start` and the tests stay quiet.
import { Logger } from '@aws-lambda-powertools/logger';
import { DEFAULT_SERVICE_NAME } from './metric-names.js';

type LogLevel = NonNullable<ConstructorParameters<typeof Logger>[0]>['logLevel'];

export interface LoggerOptions {
  readonly serviceName?: string;
  readonly logLevel?: LogLevel;
}

export function createLogger(options: LoggerOptions = {}, env: NodeJS.ProcessEnv = process.env): Logger {
  const inLambda = Boolean(env.AWS_LAMBDA_FUNCTION_NAME);
  return new Logger({
    serviceName: options.serviceName ?? (env.POWERTOOLS_SERVICE_NAME || DEFAULT_SERVICE_NAME),
    logLevel: options.logLevel ?? ((env.POWERTOOLS_LOG_LEVEL || (inLambda ? 'INFO' : 'WARN')) as LogLevel),
  });
}

/** The process-wide logger: handlers and lib code log through this one instance. */
export const logger: Logger = createLogger();
