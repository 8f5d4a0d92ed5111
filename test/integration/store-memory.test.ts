import { memoryStore } from '../support/store-under-test';
import { describeStoreContract } from './store-contract';
import { describeJobStoreContract } from './store-contract-jobs';
import { describeShowNightStoreContract } from './store-contract-show-night';

// The in-memory store the domain's unit tests run on keeps the same contract as DynamoStore.
describeStoreContract('the in-memory store (unit tests)', memoryStore);
describeShowNightStoreContract('the in-memory store (unit tests)', memoryStore);
describeJobStoreContract('the in-memory store (unit tests)', memoryStore);
