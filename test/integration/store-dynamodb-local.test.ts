import { startDynamoDbLocal } from '../support/dynamodb-local';
import { describeStoreContract } from './store-contract';
import { describeShowNightStoreContract } from './store-contract-show-night';

describeStoreContract('DynamoDB Local (AWS)', (tableName) => startDynamoDbLocal(tableName));
describeShowNightStoreContract('DynamoDB Local (AWS)', (tableName) => startDynamoDbLocal(tableName));
