/**
 * The second S3 test server, s3rver (scripts/s3rver_fixture.py), as the
 * tests read and write it: in Node, with the AWS SDK and the right keys.
 */
import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client
} from '@aws-sdk/client-s3';

import { startedPart } from './helpers';

export function server() {
  return startedPart('s3rver', 's3rver');
}

export function client(): S3Client {
  const info = server();
  return new S3Client({
    endpoint: info.endpoint_url,
    region: 'us-east-1',
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    credentials: {
      accessKeyId: info.access_key_id,
      secretAccessKey: info.secret_access_key
    }
  });
}

/** An object's text on s3rver, or null when there is none. */
export async function readObject(
  bucket: string,
  key: string
): Promise<string | null> {
  try {
    const answer = await client().send(
      new GetObjectCommand({ Bucket: bucket, Key: key })
    );
    return await answer.Body!.transformToString();
  } catch (error: any) {
    if (error?.name === 'NoSuchKey') {
      return null;
    }
    throw error;
  }
}

export async function writeObject(
  bucket: string,
  key: string,
  body: string
): Promise<void> {
  await client().send(
    new PutObjectCommand({ Bucket: bucket, Key: key, Body: body })
  );
}

export async function keysBelow(
  bucket: string,
  prefix: string
): Promise<string[]> {
  const answer = await client().send(
    new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix })
  );
  return (answer.Contents ?? []).map(item => item.Key!);
}
