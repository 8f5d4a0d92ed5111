import { dynamoStoresOn } from '../support/store-under-test';
import { startDynamoDbLocal } from '../support/dynamodb-local';
import { describeStoreContract } from './store-contract';
import { describeShowNightStoreContract } from './store-contract-show-night';
import { describeOrderStoreContract } from './store-contract-orders';

const dynamoDbLocal = dynamoStoresOn(startDynamoDbLocal);
describeStoreContract('DynamoDB Local (AWS)', dynamoDbLocal);
describeShowNightStoreContract('DynamoDB Local (AWS)', dynamoDbLocal);
describeOrderStoreContract('DynamoDB Local (AWS)', dynamoDbLocal);
