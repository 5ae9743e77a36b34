import { DriverError, expect } from '../../fixtures/conformance.ts';

/**
 * What a driver call answered: its value, or the DriverError it failed with — the answers a
 * repeated call may give (README.md beside this file). Any other error fails the test.
 */
export async function driverAnswer<T>(call: Promise<T>): Promise<T | DriverError> {
  try {
    return await call;
  } catch (error) {
    expect(error, `the call failed with a driver error: ${(error as Error).message}`).toBeInstanceOf(DriverError);
    return error as DriverError;
  }
}
