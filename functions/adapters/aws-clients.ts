import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';

/**
 * Where the SDK clients connect: nothing in AWS (the SDK's own defaults: the function's region,
 * role and endpoints); locally the stand-ins' endpoints, a region and placeholder credentials,
 * given explicitly by the local wiring.
 */
export interface AwsConnection {
  region?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  endpoints?: { dynamodb?: string; s3?: string; sqs?: string };
  /** Path-style bucket URLs, which the local S3 stand-in needs. */
  s3ForcePathStyle?: boolean;
}

export function dynamoDocumentClient(aws: AwsConnection = {}): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({ maxAttempts: 3, region: aws.region, credentials: aws.credentials, endpoint: aws.endpoints?.dynamodb }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
}

export function s3Client(aws: AwsConnection = {}): S3Client {
  return new S3Client({
    region: aws.region,
    credentials: aws.credentials,
    endpoint: aws.endpoints?.s3,
    forcePathStyle: aws.s3ForcePathStyle ?? false,
    // Plain payloads: stand-ins store aws-chunked framing verbatim otherwise.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export function sqsClient(aws: AwsConnection = {}): SQSClient {
  return new SQSClient({ region: aws.region, credentials: aws.credentials, endpoint: aws.endpoints?.sqs });
}

/** The SDK clients a deployable may need, on one connection. */
export interface AwsClients {
  readonly dynamo: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
}

/** The SDK clients on `connection`, each made at its first use: a function makes only those its composition asks for. */
export function awsClients(connection: AwsConnection = {}): AwsClients {
  let dynamo: DynamoDBDocumentClient | undefined;
  let s3: S3Client | undefined;
  let sqs: SQSClient | undefined;
  return {
    get dynamo() {
      return (dynamo ??= dynamoDocumentClient(connection));
    },
    get s3() {
      return (s3 ??= s3Client(connection));
    },
    get sqs() {
      return (sqs ??= sqsClient(connection));
    },
  };
}
