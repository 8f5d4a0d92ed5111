import { dynamoStoresOn } from '../support/store-under-test';
import { startDynamoDbLocal } from '../../harness/dynamodb-local';
import { describeStoreContract } from './store-contract';
import { describeJobStoreContract } from './store-contract-jobs';
import { describeAudienceStoreContract } from './store-contract-audience';
import { describeShowNightStoreContract } from './store-contract-show-night';
import { describeOrderStoreContract } from './store-contract-orders';
import { describeSlotStoreContract } from './store-contract-slots';

const dynamoDbLocal = dynamoStoresOn(startDynamoDbLocal);
describeStoreContract('DynamoDB Local (AWS)', dynamoDbLocal);
describeShowNightStoreContract('DynamoDB Local (AWS)', dynamoDbLocal);
describeJobStoreContract('DynamoDB Local (AWS)', dynamoDbLocal);
describeAudienceStoreContract('DynamoDB Local (AWS)', dynamoDbLocal);
describeOrderStoreContract('DynamoDB Local (AWS)', dynamoDbLocal);
describeSlotStoreContract('DynamoDB Local (AWS)', dynamoDbLocal);
