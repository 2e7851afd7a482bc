// Public surface of the device host package for the benchmark, the reference client's tests and the approval page.

export { normalizeUserCode } from '@svc/device-grant';
export { createDeviceApp } from './app';
export { type DeviceConfig, deviceConfigFromEnv } from './config';
export { type DeviceDeps, deviceDepsOf, openDeviceDeps } from './deps';
export * from './domain/approval';
