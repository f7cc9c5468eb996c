export { telemetryRowSchema, type TelemetryRow, telemetryStreamKey } from './telemetry';
