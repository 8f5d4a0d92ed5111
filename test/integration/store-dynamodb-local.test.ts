import { startDynamoDbLocal } from '../support/dynamodb-local';
import { describeStoreContract } from './store-contract';

describeStoreContract('DynamoDB Local (AWS)', (tableName) => startDynamoDbLocal(tableName));
