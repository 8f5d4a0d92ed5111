import { memoryStores } from '../support/store-under-test';
import { describeStoreContract } from './store-contract';
import { describeJobStoreContract } from './store-contract-jobs';
import { describeAudienceStoreContract } from './store-contract-audience';
import { describeShowNightStoreContract } from './store-contract-show-night';
import { describeOrderStoreContract } from './store-contract-orders';
import { describeSlotStoreContract } from './store-contract-slots';

// The in-memory stores the domain's unit tests run on keep the same contract as the DynamoDB adapters.
describeStoreContract('the in-memory store (unit tests)', memoryStores);
describeShowNightStoreContract('the in-memory store (unit tests)', memoryStores);
describeJobStoreContract('the in-memory store (unit tests)', memoryStores);
describeAudienceStoreContract('the in-memory store (unit tests)', memoryStores);
describeOrderStoreContract('the in-memory store (unit tests)', memoryStores);
describeSlotStoreContract('the in-memory store (unit tests)', memoryStores);
