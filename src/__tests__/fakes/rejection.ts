/**
 * The error a promise rejects with; fails when it resolves.
 */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('The promise resolved');
}
