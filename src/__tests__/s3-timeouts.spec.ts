/**
 * @jest-environment-options {"customExportConditions": ["node", "require", "default"]}
 */
/**
 * A service that takes a request and never answers, or stops sending a
 * body, fails the transfer with its reason instead of holding it until the
 * person cancels: the real SDK, over the fake S3 endpoint.
 */
import { ReadableStream as NodeReadableStream } from 'stream/web';

import { nullTranslator } from '@jupyterlab/translation';

import { describeError } from '../errors/describe';
import {
  ANSWER_TIMEOUT_MS,
  AnswerInTime,
  STALL_TIMEOUT_MS,
  streamPieces
} from '../s3/client';
import { FakeS3Http, sdkStoreOver } from './fakes/http';
import { rejection } from './fakes/store';

if (typeof globalThis.ReadableStream === 'undefined') {
  (globalThis as any).ReadableStream = NodeReadableStream;
}

const trans = nullTranslator.load('jupyterlab_bookshelf');

describe('a request without a body has a time to be answered', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('gives the handler the answer timeout for reads, none for uploads', async () => {
    const seen: { method: string; requestTimeout?: number }[] = [];
    const handler = new AnswerInTime({
      handle: async (request: any, options: any = {}) => {
        seen.push({
          method: request.method,
          requestTimeout: options.requestTimeout
        });
        return { response: {} as any };
      }
    });
    await handler.handle({ method: 'GET' } as any);
    await handler.handle({ method: 'PUT', body: new Uint8Array(3) } as any);
    await handler.handle({ method: 'HEAD' } as any, { requestTimeout: 5 });
    expect(seen).toEqual([
      { method: 'GET', requestTimeout: ANSWER_TIMEOUT_MS },
      { method: 'PUT', requestTimeout: undefined },
      { method: 'HEAD', requestTimeout: 5 }
    ]);
  });

  it('a GET the service never answers fails as a timeout after one more try', async () => {
    jest.useFakeTimers();
    const http = new FakeS3Http();
    http.put('b', 'k.ipynb', '{}');
    http.always('GET', { type: 'silent' });
    let settled = false;
    const result = rejection(sdkStoreOver(http).getObject('b', 'k.ipynb'));
    void result.then(() => (settled = true));
    // Two silences of 30 s: reported within 90 s (four tries took 130 s).
    for (let step = 0; step < 9; step++) {
      await jest.advanceTimersByTimeAsync(10_000);
    }
    expect(settled).toBe(true);
    const error = await result;
    expect(error.code).toBe('Unreachable');
    expect((error.detail as any).reason).toBe('timeout');
    const gets = http.calls.filter(call => call.method === 'GET');
    // Tried once more, not the SDK's four times: reported after a minute.
    expect(gets.length).toBe(2);
    expect(gets.every(call => call.requestTimeout === ANSWER_TIMEOUT_MS)).toBe(
      true
    );
    // Each try's fetch is stopped, not left waiting for a late answer.
    expect(gets.every(call => call.abortSignal?.aborted)).toBe(true);
    expect(describeError(error, trans).message).toBe(
      'The S3 service at http://s3.example.test did not answer in time.'
    );
  });

  it("the caller's abort reaches the fetch, before or after the answer", async () => {
    const signals: AbortSignal[] = [];
    const handler = new AnswerInTime({
      handle: async (_request: any, options: any = {}) => {
        signals.push(options.abortSignal);
        return { response: {} as any };
      }
    });
    const answered = new AbortController();
    await handler.handle({ method: 'GET' } as any, {
      abortSignal: answered.signal
    });
    expect(signals[0].aborted).toBe(false);
    answered.abort(); // e.g. Cancel while the body downloads
    expect(signals[0].aborted).toBe(true);
    const before = new AbortController();
    before.abort();
    await handler.handle({ method: 'HEAD' } as any, {
      abortSignal: before.signal
    });
    expect(signals[1].aborted).toBe(true);
    // Without the caller's signal, the fetch has one of its own all the same.
    await handler.handle({ method: 'GET' } as any);
    expect(signals[2].aborted).toBe(false);
  });

  it('an upload is not given the answer timeout', async () => {
    const http = new FakeS3Http();
    await sdkStoreOver(http).putObject('b', 'n.ipynb', '{"cells": []}');
    const [put] = http.calls.filter(call => call.method === 'PUT');
    expect(put.requestTimeout).toBeUndefined();
  });
});

describe('a download that stops sending', () => {
  /** The first piece of `bytes`, then nothing, ever. */
  function stalling(bytes: Uint8Array): ReadableStream<Uint8Array> {
    let sent = false;
    return new ReadableStream({
      pull(controller: any) {
        if (!sent) {
          sent = true;
          controller.enqueue(bytes.slice(0, 100));
        }
        return new Promise(() => undefined);
      }
    } as any);
  }

  it('fails as Interrupted, saying for how long nothing came', async () => {
    const pieces: number[] = [];
    const error = await rejection(
      (async () => {
        for await (const piece of streamPieces(stalling(new Uint8Array(1000)), {
          total: 1000,
          stallTimeoutMs: 1000
        })) {
          pieces.push(piece.byteLength);
        }
      })()
    );
    expect(pieces).toEqual([100]);
    expect(error.code).toBe('Interrupted');
    expect(error.detail).toMatchObject({
      loaded: 100,
      total: 1000,
      stalled: 1
    });
    const description = describeError(error, trans);
    expect(description.title).toBe('Transfer stalled');
    expect(description.message).toContain(
      'The S3 service sent nothing for 1 seconds, after 100 bytes'
    );
  });

  it('a slow download within the bound completes', async () => {
    const bytes = new Uint8Array(300).map((_, index) => index % 251);
    let offset = 0;
    const slow = new ReadableStream({
      async pull(controller: any) {
        await new Promise(resolve => setTimeout(resolve, 300));
        if (offset >= bytes.length) {
          controller.close();
          return;
        }
        controller.enqueue(bytes.slice(offset, offset + 100));
        offset += 100;
      }
    } as any);
    let loaded = 0;
    for await (const piece of streamPieces(slow, {
      total: 300,
      stallTimeoutMs: 1000
    })) {
      loaded += piece.byteLength;
    }
    expect(loaded).toBe(300);
  });

  it('waits a minute by default', () => {
    expect(STALL_TIMEOUT_MS).toBe(60_000);
  });
});
